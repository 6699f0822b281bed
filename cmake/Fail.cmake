# SPDX-License-Identifier: Apache-2.0
# cmake -DMESSAGE=<text> -P Fail.cmake: a test that fails with a message
# (used when a test's tool is missing on this machine).
cmake_minimum_required(VERSION 3.25)
message(FATAL_ERROR "${MESSAGE}")
