// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import NavGuardCore
import NavGuardValidator

/// The value of every `--config`: JSON given on the command line, or read
/// from a file.
///
///     --config '{"interval_ms": 50}'     the JSON text itself
///     --config @throttle.json            the contents of throttle.json
///
/// "@FILE", as curl's -d and compilers' response files have it, cannot be
/// mistaken for JSON, so text that is not JSON reaches what parses it (and
/// refuses it with its own message). Compatibility with the form
/// `plugins list --config chain.json`: a value that does not start like
/// JSON and names a file that exists is read from that file too.
struct JSONArgument: ExpressibleByArgument {
    /// The value as given on the command line.
    let argument: String

    init(argument: String) { self.argument = argument }

    var defaultValueDescription: String { argument }

    enum Source: Equatable {
        case text
        case file(String)
    }

    var source: Source {
        if argument.hasPrefix("@") { return .file(String(argument.dropFirst())) }
        if !startsLikeJSON, isReadableNonDirectory(argument) { return .file(argument) }
        return .text
    }

    /// Its first non-blank character opens a JSON object or array.
    var startsLikeJSON: Bool {
        guard let c = argument.first(where: { !" \t\r\n".contains($0) }) else { return false }
        return c == "{" || c == "["
    }

    /// The JSON text, and where it came from: "(JSON text)" or the file's
    /// real path. A file may hold up to JSON.maxInputBytes, the most NavGuard
    /// parses. `requiringObject` (a chain configuration): a value that is
    /// neither JSON nor a file that exists is most likely a misspelt file
    /// name, and is reported as one ("cannot open chian.json: No such file
    /// or directory, ..."), not as a JSON syntax error at byte 0.
    func read(requiringObject: Bool = false) throws(FileError) -> (text: String, origin: String) {
        switch source {
        case .text:
            if requiringObject && !startsLikeJSON {
                // Not a file (source said so): the reader says why.
                do throws(FileError) { _ = try readFile(argument) } catch {
                    throw FileError(message: error.message + ", and it is not JSON text either")
                }
                throw FileError(message: "\(argument) is not JSON text (write @FILE to read a file)")
            }
            return (argument, "(JSON text)")
        case .file(let path):
            guard !path.isEmpty else { throw FileError(message: "@ names no file (write @FILE)") }
            let bytes = try readFile(path, maxBytes: JSON.maxInputBytes)
            return (String(decoding: bytes, as: UTF8.self), realPath(path))
        }
    }

    /// read() for `navguard COMMAND --config`: a value that cannot be read is
    /// printed as "navguard COMMAND: --config: <why>" and ends the command
    /// with `exitCode`.
    func read(for command: String, requiringObject: Bool = false, exitCode: ExitCode) throws -> (text: String, origin: String) {
        do throws(FileError) {
            return try read(requiringObject: requiringObject)
        } catch {
            printError("navguard \(command): --config: \(error.message)")
            throw exitCode
        }
    }
}
