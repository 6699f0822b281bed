/* SPDX-License-Identifier: Apache-2.0 */
/* The tool's command-line arguments as the process received them (argv),
 * captured by an ELF constructor: no /proc needed. */
#ifndef NAVGUARD_CLI_ARGS_H
#define NAVGUARD_CLI_ARGS_H

char **ngcli_arguments(int *argc);

#endif
