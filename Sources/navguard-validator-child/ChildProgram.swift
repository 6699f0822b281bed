// SPDX-License-Identifier: Apache-2.0
import NavGuardCLIArgs
import NavGuardLibc
import NavGuardValidator

// navguard-validator-child [--config JSON] [--expect-create-failure] GROUP LIBRARY
//
// One check group of `navguard plugins validate` run in this process, its
// results on stdout as the validator's line protocol (ValidatorProtocol.swift):
// what `navguard plugins validate --child GROUP` does inside the tool. The
// tool runs this program instead when given --child-program, for a plugin
// this machine cannot load: the program is built for the plugin's machine
// (make cross-arm64 builds it for aarch64, in Embedded Swift) and run under
// an emulator (--child-wrapper). The parent keeps the report, the gates,
// the timeouts and the crash handling. The configuration is used as given
// (the parent has read it). Exit status 0 once the group ran, 2 on a
// command-line error.

@main
struct ValidatorChildProgram {
    static func main() {
        var argc: Int32 = 0
        let argv = ngcli_arguments(&argc)
        var args: [String] = []
        if let argv {
            for i in 1..<Int(max(argc, 1)) { if let a = argv[i] { args.append(String(cString: a)) } }
        }
        var config = "{}", expectCreateFailure = false
        var positional: [String] = []
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--config" where i + 1 < args.count:
                config = args[i + 1]
                i += 1
            case "--expect-create-failure":
                expectCreateFailure = true
            default:
                positional.append(args[i])
            }
            i += 1
        }
        guard positional.count == 2 else {
            printError("usage: navguard-validator-child [--config JSON] [--expect-create-failure] GROUP LIBRARY")
            exit(2)
        }
        exit(runChild(group: positional[0],
                      ValidationInput(path: positional[1], config: config, expectCreateFailure: expectCreateFailure)))
    }
}
