// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The options group: every option the guard declares (descriptor `options`,
// read by the loader's OptionTable) at its boundary values. Values inside the
// declaration must create (or be refused by the guard itself); values outside
// it must be refused by the host with NG_E_PARSE before create.

/// The values to try for one option: valid ones (create should work, or
/// fail only for a reason of the guard's own) and invalid ones (the host
/// must refuse them with NG_E_PARSE before create).
func boundaryValues(_ o: OptionDecl) -> (valid: [JSONValue], invalid: [JSONValue]) {
    func num(_ d: Double, integral: Bool) -> JSONValue? {
        if integral {
            guard d >= -9_007_199_254_740_992, d <= 9_007_199_254_740_992 else { return nil }   // exact in a double
            return .integer(Int64(d))
        }
        return d.isFinite ? .number(d) : nil
    }
    switch o.type {
    case .int, .double:
        let integral = o.type == .int
        guard o.bounded else { return ([.integer(0)], [.string("x")]) }
        let valid = [num(o.min, integral: integral), num(o.max, integral: integral)].compactMap { $0 }
        let invalid = [num(o.min - 1, integral: integral), num(o.max + 1, integral: integral)].compactMap { $0 }
            + [.string("x")] + (integral ? [.number(o.min + 0.5)] : [])
        return (valid, invalid)
    case .bool:
        return ([.bool(true), .bool(false)], [.string("true"), .integer(1)])
    case .string:
        return ([.string(""), .string("validator")], [.integer(1), .null])
    case .enum:
        return (o.choices.map { .string($0) }, [.string("validator-no-such-choice"), .integer(0)])
    default:
        // Items from the allowed ones when declared, cycling.
        func item(_ i: Int) -> JSONValue { .string(o.choices.isEmpty ? "v\(i)" : o.choices[i % o.choices.count]) }
        func list(_ n: Int) -> JSONValue { .array((0..<n).map(item)) }
        guard o.bounded else { return ([list(0), list(1)], [.string("v0"), .array([.integer(1)])]) }
        let lo = max(0, Int(o.min)), hi = Int(min(o.max, 256))
        var invalid: [JSONValue] = [.string("v0"), .array([.integer(1)])]
        if !o.choices.isEmpty { invalid.append(.array([.string("validator-no-such-item")])) }
        if o.max < 256 { invalid.append(list(hi + 1)) }
        if lo > 0 { invalid.append(list(lo - 1)) }
        return ([list(lo), list(hi)], invalid)
    }
}

/// options: every declared option at its boundary values.
func optionChecks(_ input: ValidationInput, _ plugin: PluginUnderTest) {
    let table = plugin.descriptor.options
    guard table.declared, !table.options.isEmpty else {
        check("options.boundaries") { .pass("not applicable: the guard declares no options") }
        return
    }
    let base: [(String, JSONValue)] = (try? JSON.parse(input.config))?.object ?? []
    for o in table.options {
        check("options.\(o.name)") {
            let (valid, invalid) = boundaryValues(o)
            var created: [String] = [], refusedByGuard: [String] = [], problems: [String] = []
            for v in valid + invalid {
                let shown = JSON.serialize(v)
                var members = base.filter { $0.0 != o.name }
                members.append((o.name, v))
                let text = JSON.serialize(.object(members))
                let h = Harness()
                step("ng_chain_add with \(o.name) = \(shown)")
                let (st, why) = h.addGuard(plugin.proxy, config: text)
                let isValid = valid.contains { JSON.serialize($0) == shown }
                if isValid {
                    if st == NG_OK {
                        created.append(shown)
                        step("push, pop, touch and tick with \(o.name) = \(shown)")
                        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("option"))
                        h.settle()
                        h.touch(on: Harness.button)
                        h.submit(NG_REQ_POP)
                        h.advance(Harness.second)
                        h.tick()
                    } else if st == NG_E_GUARD {
                        refusedByGuard.append("\(shown) (\(why))")
                    } else {
                        problems.append("\(shown), inside the declaration, got \(why)")
                    }
                } else if st != NG_E_PARSE {
                    problems.append("\(shown), outside the declaration, got \(st == NG_OK ? "NG_OK" : why) instead of NG_E_PARSE")
                }
                step("ng_context_destroy")
                h.destroy()
            }
            if !problems.isEmpty { return .fail(problems.joined(separator: "; ")) }
            let detail = "\(OptionDecl.typeName(o.type)) \(o.expected): created with \(created.joined(separator: ", ")); "
                + "refused outside it: \(invalid.map { JSON.serialize($0) }.joined(separator: ", "))"
            if !refusedByGuard.isEmpty {
                return .warn("the guard refuses values its declaration allows: \(refusedByGuard.joined(separator: "; ")) [\(detail)]")
            }
            return .pass(detail)
        }
    }
}
