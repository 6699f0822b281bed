/* SPDX-License-Identifier: Apache-2.0 */
/* A library that missing_dep.so needs and the loader cannot find. */
__attribute__((visibility("default"))) int ngtest_dep_value(void) { return 42; }
