/* SPDX-License-Identifier: Apache-2.0 */
/* The navguard tool's own arguments, captured before Swift starts. Swift on
 * Linux reads CommandLine.arguments from /proc/self/cmdline, which a chroot
 * or a minimal container may not mount: the tool would see no arguments.
 * glibc passes argc, argv and envp to ELF constructors, so keep them here. */
#include "navguard_cli_args.h"

static int saved_argc;
static char **saved_argv;

__attribute__((constructor)) static void save_arguments(int argc, char **argv, char **envp) {
    (void)envp;
    saved_argc = argc;
    saved_argv = argv;
}

char **ngcli_arguments(int *argc) {
    *argc = saved_argc;
    return saved_argv;
}
