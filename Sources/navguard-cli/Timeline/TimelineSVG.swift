// SPDX-License-Identifier: Apache-2.0
import NavGuardCore

/// A TimelineModel drawn as one self-contained SVG (no scripts, no external
/// fonts): a headline of what went wrong and when, a lane per track, a time
/// axis in milliseconds (long idle stretches folded), a `<title>` on every
/// item for hovering, and what is stuck in red with its reason written
/// under it, so a frozen session reads at a glance.
struct TimelineSVG {
    let model: TimelineModel
    var source: String { model.source }

    private static let width = 1200.0
    private static let labelWidth = 150.0
    private static let rightPad = 24.0
    /// A row's items; the words under them (why a span stands out, a
    /// refusal's reason) take a line each where they would overlap.
    private static let rowHeight = 26.0
    private static let noteLine = 13.0
    /// Span labels are monospaced, so their width can be known without a font.
    private static let charWidth = 6.1
    private static let maxAlarmLines = 6

    private var plotWidth: Double { Self.width - Self.labelWidth - Self.rightPad }
    /// What a folded stretch is drawn as.
    static let foldWidth = 34.0

    init(model: TimelineModel) {
        self.model = model
        scale = TimeScale(model, left: Self.labelWidth, width: Self.width - Self.labelWidth - Self.rightPad)
    }

    private let scale: TimeScale

    private func x(_ t: Int64) -> Double { scale.x(t) }

    func render() -> String {
        var body = ""
        var y = header(&body)
        y += 34   // the axis labels
        let lanesTop = y
        // A group's name on its first row; groups shaded in turn.
        var rows: [(lane: TimelineModel.Lane, label: String?, y: Double, height: Double, shade: Bool)] = []
        var rowY: [TimelineModel.Lane: Double] = [:]
        var words: [(note: Note, y: Double)] = []
        var groups = 0
        for (lane, _) in model.lanes {
            let g = group(lane)
            let first = rows.last.map { group($0.lane) != g } ?? true
            if first { groups += 1 }
            let (placed, lines) = layout(notes(in: lane))
            let top = y + Self.rowHeight + 8
            let height = Self.rowHeight + Double(lines) * Self.noteLine
            rows.append((lane, first ? g : nil, y, height, groups % 2 == 0))
            rowY[lane] = y
            for p in placed { words.append((p.note, top + Double(p.line) * Self.noteLine)) }
            y += height
        }
        let lanesBottom = y
        for r in rows {
            if r.shade { body += rect(0, r.y, Self.width, r.height, cls: "shade") }
            if let l = r.label { body += "<text class=\"lane\" x=\"10\" y=\"\(f(r.y + 17))\">\(TimelineFormat.xml(l))</text>\n" }
        }
        axis(&body, top: lanesTop, bottom: lanesBottom)
        for s in model.spans { span(&body, s, y: rowY[s.lane] ?? lanesTop) }
        // Markers at (about) the same place are set side by side: none hides
        // another (a touch's cancel and the report that did it).
        var lastX: [TimelineModel.Lane: Double] = [:]
        for i in model.instants {
            var px = x(i.t)
            if let l = lastX[i.lane], px - l < 9 { px = l + 9 }
            lastX[i.lane] = px
            instant(&body, i, y: rowY[i.lane] ?? lanesTop, at: px)
        }
        for n in words {
            body += "<text class=\"\(n.note.cls)\" x=\"\(f(n.note.x))\" y=\"\(f(n.y))\">\(TimelineFormat.xml(n.note.text))</text>\n"
        }
        y = legend(&body, top: lanesBottom + 14)
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(Self.width))" height="\(f(y))" viewBox="0 0 \(f(Self.width)) \(f(y))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <title>NavGuard timeline: \(TimelineFormat.xml(source))</title>
        <style>
        .bg{fill:#fff}.shade{fill:#f3f4f6}.grid{stroke:#d1d5db;stroke-width:1}.axis{fill:#4b5563;font-size:11px}
        .lane{fill:#111827;font-weight:bold}.h1{font-size:16px;font-weight:bold;fill:#111827}.sub{fill:#4b5563}
        .note{fill:#b45309;font-weight:bold}.alarmline{fill:#b91c1c}
        .mono{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:10px}
        .in{fill:#fff}.in-dark{fill:#111827}
        .transition{fill:#4c78a8}.hold{fill:#8e6bbf}.touch{fill:#54a24b}.press{fill:#0f766e}
        .focus{fill:#1d4ed8}.focuslabel{fill:#1d4ed8;font-size:10px}
        .dropped{fill:#d6d3d1;stroke:#c2410c;stroke-width:1;stroke-dasharray:3 2}
        .warning{fill:#f2a93b}.alarm{fill:#d62728}
        .phase{fill:#fde68a;opacity:.9}.phase-done{fill:#a7f3d0}.phase-back{fill:#fecaca}
        .flag-warning{fill:#b45309;font-weight:bold;font-size:11px}.flag-alarm{fill:#b91c1c;font-weight:bold;font-size:11px}
        .applied{fill:#16a34a}.other{fill:#6b7280}.refused{stroke:#dc2626;stroke-width:2.2;fill:none}
        .reason{fill:#b91c1c;font-size:10px}.report{fill:#d62728}.warnmark{fill:#f59e0b}
        .wait{fill:#cbd5e1}.fold{fill:#f9fafb}.foldline{stroke:#9ca3af;stroke-width:1;stroke-dasharray:2 2}.foldtext{fill:#6b7280;font-size:10px}
        </style>
        <rect class="bg" x="0" y="0" width="100%" height="100%"/>
        \(body)</svg>

        """
    }

    // MARK: Parts

    /// Title, what was recorded, notes a reader must see first and the
    /// stuck items; returns the y below them.
    private func header(_ out: inout String) -> Double {
        out += "<text class=\"h1\" x=\"10\" y=\"24\">NavGuard timeline — \(TimelineFormat.xml(source))</text>\n"
        let transitions = model.spans.filter { $0.lane == .screen }.count
        let holds = model.spans.filter { if case .holds = $0.lane { return true } else { return false } }.count
        let touches = model.spans.filter { if case .touches = $0.lane { return true } else { return false } }
        let requests = model.instants.filter { $0.lane == .requests }
        let refused = requests.filter { $0.mark == .dropped }.count
        let start = ["create": "recorded from the context's creation", "mid-session": "recorded from mid-session",
                     "ring": "a ring dump"][model.start] ?? model.start
        // Touches dropped at began, touches NavGuard cancelled, and every
        // input event dropped (a cancelled touch's later moves and end too).
        let cancelled = touches.filter { $0.phases.contains { $0.name == "cancelled by NavGuard" } }.count
        let presses = model.spans.filter { if case .presses = $0.lane { return true } else { return false } }
        let pressText = presses.isEmpty ? "" : "\(presses.count) press\(presses.count == 1 ? "" : "es") "
            + "(\(presses.filter { $0.mark == .dropped }.count) dropped at down, \(presses.filter { !$0.phases.isEmpty }.count) cancelled), "
        let sub = "\(start) · \(TimelineFormat.ms(model.duration)) · \(transitions) screen transition\(transitions == 1 ? "" : "s"), "
            + "\(holds) hold\(holds == 1 ? "" : "s"), \(touches.count) touch\(touches.count == 1 ? "" : "es") "
            + "(\(touches.filter { $0.mark == .dropped }.count) dropped at began, \(cancelled) cancelled), " + pressText
            + "\(model.eventsDropped) of \(model.events) input event\(model.events == 1 ? "" : "s") dropped, "
            + "\(requests.count) request outcome\(requests.count == 1 ? "" : "s") "
            + "(\(refused) refused or dropped)"
        out += "<text class=\"sub\" x=\"10\" y=\"44\">\(TimelineFormat.xml(sub))</text>\n"
        var y = 44.0
        for n in model.notes {
            y += 18
            out += "<text class=\"note\" x=\"10\" y=\"\(f(y))\">\(TimelineFormat.xml(n))</text>\n"
        }
        // The headline: when the watchdog (or a guard) acted and what it
        // did, what never finished, a crash; at the moment it happened.
        let lines = model.headline
        for a in lines.prefix(Self.maxAlarmLines) {
            y += 18
            out += "<text class=\"alarmline\" x=\"10\" y=\"\(f(y))\"><tspan font-weight=\"bold\">⚠ at \(TimelineFormat.ms(a.t)):</tspan> \(TimelineFormat.xml(a.text))</text>\n"
        }
        if lines.count > Self.maxAlarmLines {
            y += 18
            out += "<text class=\"alarmline\" x=\"10\" y=\"\(f(y))\">… and \(lines.count - Self.maxAlarmLines) more (see the red items below)</text>\n"
        }
        return y + 8
    }

    /// Grid lines and labels every 1, 2 or 5 × 10^k ms, about ten of them
    /// over the time not folded; a folded stretch says how long it was.
    private func axis(_ out: inout String, top: Double, bottom: Double) {
        let step = scale.step
        var t = (model.viewStart + step - 1) / step * step
        var lastLabel = -100.0
        while t <= model.duration {
            // Over a fold at once: stepping through it could take 2^40 steps
            // (a stray instant far past the rest folds almost everything).
            if let fold = scale.fold(at: t) {
                t = max(t + step, (fold.end + step - 1) / step * step)
                continue
            }
            let px = x(t)
            out += "<line class=\"grid\" x1=\"\(f(px))\" y1=\"\(f(top - 6))\" x2=\"\(f(px))\" y2=\"\(f(bottom))\"/>\n"
            if px - lastLabel >= 52 {
                out += "<text class=\"axis\" x=\"\(f(px))\" y=\"\(f(top - 10))\" text-anchor=\"middle\">\(TimelineFormat.ms(t))</text>\n"
                lastLabel = px
            }
            t += step
        }
        for fold in model.folds {
            let x0 = x(fold.start), x1 = x(fold.end)
            out += "<g><title>\(TimelineFormat.xml("nothing happened from \(TimelineFormat.ms(fold.start)) to \(TimelineFormat.ms(fold.end)) (\(TimelineFormat.ms(fold.end - fold.start)))"))</title>"
            out += rect(x0, top - 4, x1 - x0, bottom - top + 4, cls: "fold")
            out += "<path class=\"foldline\" d=\"M\(f(x0 + 3)) \(f(top - 4))L\(f(x0 + 3)) \(f(bottom))M\(f(x1 - 3)) \(f(top - 4))L\(f(x1 - 3)) \(f(bottom))\"/>"
            out += "<text class=\"axis\" x=\"\(f((x0 + x1) / 2))\" y=\"\(f(top - 10))\" text-anchor=\"middle\">⋯</text>"
            out += "<text class=\"foldtext\" transform=\"translate(\(f((x0 + x1) / 2 + 3)) \(f(top + 6))) rotate(90)\">\(TimelineFormat.xml(TimelineFormat.duration(fold.end - fold.start))) idle</text></g>\n"
        }
    }

    private func span(_ out: inout String, _ s: TimelineModel.Span, y: Double) {
        let x0 = x(s.start)
        let w = max(x(s.end) - x0, 2)
        let cls: String
        switch s.mark {
        case .alarm: cls = "alarm"
        case .warning: cls = "warning"
        case .dropped: cls = "dropped"
        case .normal: cls = s.category.hasPrefix("touch") ? "touch" : s.category == "request.wait" ? "wait" : s.category
        }
        out += "<g><title>\(TimelineFormat.xml(title(s.name, start: s.start, end: s.end, flag: s.flag, args: s.args)))</title>"
        out += rect(x0, y + 4, w, 17, cls: cls, rounded: true)
        for p in s.phases {
            let px = x(p.start)
            let pcls = p.name.hasPrefix("finishing") ? "phase-done" : p.name.hasPrefix("cancel") ? "phase-back" : "phase"
            out += "<g><title>\(TimelineFormat.xml("\(p.name)\n\(TimelineFormat.ms(p.start)) – \(TimelineFormat.ms(p.end))"))</title>"
            out += rect(px, y + 15, max(x(p.end) - px, 1), 6, cls: pcls) + "</g>"
        }
        // A name cut to fewer than six characters would say nothing: then
        // the short form if it fits whole, else only the title.
        let fits = Int((w - 4) / Self.charWidth)
        let shown = fits >= min(6, s.name.count) ? s.name : s.short.flatMap { $0.count <= fits ? $0 : nil }
        if let shown {
            let text = shown.count <= fits ? shown : String(shown.prefix(fits - 1)) + "…"
            let dark = s.mark == .dropped || s.mark == .warning
            out += "<text class=\"mono \(dark ? "in-dark" : "in")\" x=\"\(f(x0 + 2))\" y=\"\(f(y + 15))\">\(TimelineFormat.xml(text))</text>"
        }
        out += "</g>\n"
    }

    private func instant(_ out: inout String, _ i: TimelineModel.Instant, y: Double, at px: Double) {
        let cy = y + 13
        out += "<g><title>\(TimelineFormat.xml(title(i.name, start: i.t, end: nil, flag: nil, args: i.args)))</title>"
        switch i.mark {
        case .dropped:
            out += "<path class=\"refused\" d=\"M\(f(px - 4)) \(f(cy - 4))L\(f(px + 4)) \(f(cy + 4))M\(f(px - 4)) \(f(cy + 4))L\(f(px + 4)) \(f(cy - 4))\"/>"
        case .alarm:
            out += "<path class=\"report\" d=\"M\(f(px)) \(f(cy - 7))L\(f(px + 7)) \(f(cy + 6))L\(f(px - 7)) \(f(cy + 6))Z\"/>"
        case .warning:
            out += "<path class=\"warnmark\" d=\"M\(f(px)) \(f(cy - 5))L\(f(px + 5)) \(f(cy + 4))L\(f(px - 5)) \(f(cy + 4))Z\"/>"
        case .normal:
            out += "<circle class=\"\(i.category == "request" ? "applied" : i.category == "focus" ? "focus" : "other")\" cx=\"\(f(px))\" cy=\"\(f(cy))\" r=\"3.5\"/>"
        }
        out += "</g>\n"
    }

    // MARK: Words under the items

    private struct Note {
        var x: Double
        var width: Double
        var text: String
        var cls: String
    }

    /// What is written under a lane's items: why a span stands out (from
    /// its start), an instant's label (centred on it), kept in the picture.
    private func notes(in lane: TimelineModel.Lane) -> [Note] {
        var notes: [Note] = []
        func add(_ text: String, at x: Double, centred: Bool, cls: String, charWidth: Double) {
            let w = Double(text.count) * charWidth
            let left = min(centred ? x - w / 2 : x, Self.width - Self.rightPad - w)
            notes.append(Note(x: max(left, Self.labelWidth), width: w, text: text, cls: cls))
        }
        for s in model.spans where s.lane == lane {
            guard let flag = s.flag, s.mark == .alarm || s.mark == .warning else { continue }
            add(flag, at: x(s.start), centred: false, cls: s.mark == .alarm ? "flag-alarm" : "flag-warning", charWidth: 6.9)
        }
        for i in model.instants where i.lane == lane {
            if let l = i.label { add(l, at: x(i.t), centred: true, cls: i.category == "focus" ? "focuslabel" : "reason", charWidth: 6.2) }
        }
        return notes.sorted { $0.x < $1.x }
    }

    /// Each note on the first line where it overlaps none; how many lines.
    private func layout(_ notes: [Note]) -> (placed: [(note: Note, line: Int)], lines: Int) {
        var ends: [Double] = []
        var placed: [(note: Note, line: Int)] = []
        for n in notes {
            let line = ends.firstIndex { $0 + 8 <= n.x } ?? ends.count
            if line == ends.count { ends.append(0) }
            ends[line] = n.x + n.width
            placed.append((n, line))
        }
        return (placed, ends.count)
    }

    private func legend(_ out: inout String, top: Double) -> Double {
        let items: [(String, String)] = [
            ("transition", "transition"), ("hold", "hold"), ("touch", "touch delivered"), ("press", "key / button press"), ("dropped", "touch or press dropped"),
            ("phase", "swipe: driven / undriven"), ("phase-done", "finishing"), ("phase-back", "cancelling / cancelled by NavGuard"),
            ("warning", "worth a look"), ("alarm", "stuck: never finished, forced, outlived its limit"),
        ]
        var x = 10.0, y = top
        for (cls, text) in items {
            let w = 26 + Double(text.count) * 6.6
            if x + w > Self.width - Self.rightPad { x = 10; y += 18 }
            out += rect(x, y, 14, 10, cls: cls) + "<text x=\"\(f(x + 18))\" y=\"\(f(y + 9))\" font-size=\"11\">\(TimelineFormat.xml(text))</text>\n"
            x += w
        }
        y += 18
        out += "<circle class=\"applied\" cx=\"17\" cy=\"\(f(y + 5))\" r=\"3.5\"/><text x=\"28\" y=\"\(f(y + 9))\" font-size=\"11\">request applied</text>"
        out += "<path class=\"refused\" d=\"M130 \(f(y + 1))L138 \(f(y + 9))M130 \(f(y + 9))L138 \(f(y + 1))\"/><text x=\"144\" y=\"\(f(y + 9))\" font-size=\"11\">refused or dropped (reason below)</text>"
        out += "<path class=\"report\" d=\"M360 \(f(y - 1))L367 \(f(y + 11))L353 \(f(y + 11))Z\"/><text x=\"372\" y=\"\(f(y + 9))\" font-size=\"11\">watchdog report</text>"
        out += "<text x=\"500\" y=\"\(f(y + 9))\" font-size=\"11\" fill=\"#4b5563\">Hover an item for its details.</text>\n"
        return y + 24
    }

    // MARK: Helpers

    private func group(_ lane: TimelineModel.Lane) -> String {
        switch lane {
        case .presses(let i): return i < model.pressLanes.count ? model.pressLanes[i] : "presses"
        case .screen: return "screen"
        case .bar: return "bar"
        case .holds: return "holds"
        case .touches: return "touches"
        case .waits: return "request waits"
        case .requests: return "requests"
        case .input: return "other input"
        case .reports: return "reports, logs"
        }
    }

    private func title(_ name: String, start: Int64, end: Int64?, flag: String?, args: [(String, JSONValue)]) -> String {
        var s = name
        if let f = flag { s += "\n" + f }
        if let end {
            s += "\n\(TimelineFormat.ms(start)) – \(TimelineFormat.ms(end)) (\(TimelineFormat.ms(end - start)))"
        } else {
            s += "\nat \(TimelineFormat.ms(start))"
        }
        for (k, v) in args { s += "\n\(k): \(v.string ?? JSON.serialize(v))" }
        return s
    }

    private func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double, cls: String, rounded: Bool = false) -> String {
        "<rect class=\"\(cls)\" x=\"\(f(x))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(h))\"\(rounded ? " rx=\"2\"" : "")/>"
    }

    /// Coordinates with one decimal: enough on screen, short in the file.
    private func f(_ v: Double) -> String {
        let tenths = Int64((v * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(Double(tenths) / 10)
    }
}

/// Time to x for a picture: linear over what is not folded; each folded
/// stretch takes a fixed narrow width.
struct TimeScale {
    private var segments: [(t0: Int64, t1: Int64, x0: Double, perNs: Double)] = []
    private let folds: [TimelineModel.Fold]
    /// The axis step over the unfolded time: 1, 2 or 5 × 10^k ms, about ten.
    let step: Int64

    init(_ m: TimelineModel, left: Double, width: Double) {
        folds = m.folds
        let total = max(m.duration - m.viewStart, 1)
        let folded = m.folds.reduce(Int64(0)) { $0 + ($1.end - $1.start) }
        let open = max(total - folded, 1)
        let foldWidth = min(TimelineSVG.foldWidth, width / Double(4 * max(m.folds.count, 1)))
        let perNs = (width - foldWidth * Double(m.folds.count)) / Double(open)
        var x = left
        var t = m.viewStart
        for f in m.folds {
            segments.append((t, f.start, x, perNs))
            x += Double(f.start - t) * perNs
            segments.append((f.start, f.end, x, foldWidth / Double(max(f.end - f.start, 1))))
            x += foldWidth
            t = f.end
        }
        segments.append((t, max(m.duration, t + 1), x, perNs))
        var s: Int64 = 1_000   // 1 µs
        var leading = 1
        while open / s > 10 {
            switch leading {
            case 1: s *= 2; leading = 2
            case 2: s = s / 2 * 5; leading = 5
            default: s *= 2; leading = 1
            }
        }
        step = s
    }

    func x(_ t: Int64) -> Double {
        for s in segments where t <= s.t1 { return s.x0 + Double(max(t, s.t0) - s.t0) * s.perNs }
        let s = segments[segments.count - 1]
        return s.x0 + Double(t - s.t0) * s.perNs
    }

    /// The folded stretch `t` is inside, if any.
    func fold(at t: Int64) -> TimelineModel.Fold? { folds.first { t > $0.start && t < $0.end } }
}

/// Several traces on one picture, one lane each (a fleet's dumps): each
/// lane shows its screen transitions, refusals, reports and what went
/// wrong, on its own time from its first record; the lane's label names the
/// file, and the line under it the headline's first item.
struct FleetSVG {
    let models: [TimelineModel]

    private static let width = 1200.0
    private static let labelWidth = 230.0
    private static let rightPad = 24.0
    private static let laneHeight = 44.0

    func render() -> String {
        let longest = max(models.map { $0.duration - $0.viewStart }.max() ?? 1, 1)
        let plot = Self.width - Self.labelWidth - Self.rightPad
        func x(_ m: TimelineModel, _ t: Int64) -> Double { Self.labelWidth + Double(t - m.viewStart) * plot / Double(longest) }
        var body = "<text class=\"h1\" x=\"10\" y=\"24\">NavGuard fleet — \(models.count) traces, one lane each</text>\n"
        body += "<text class=\"sub\" x=\"10\" y=\"44\">each lane from its own first record; red: stuck or forced, × refused or dropped, ▲ a report</text>\n"
        var y = 60.0
        // The axis.
        var step: Int64 = 1_000_000
        while longest / step > 10 { step *= longest / step > 50 ? 10 : 2 }
        var t: Int64 = 0
        while t <= longest {
            let px = Self.labelWidth + Double(t) * plot / Double(longest)
            body += "<line class=\"grid\" x1=\"\(f(px))\" y1=\"\(f(y + 16))\" x2=\"\(f(px))\" y2=\"\(f(y + 20 + Self.laneHeight * Double(models.count)))\"/>"
            body += "<text class=\"axis\" x=\"\(f(px))\" y=\"\(f(y + 12))\" text-anchor=\"middle\">\(TimelineFormat.ms(t))</text>\n"
            t += step
        }
        y += 20
        for (k, m) in models.enumerated() {
            if k % 2 == 1 { body += "<rect class=\"shade\" x=\"0\" y=\"\(f(y))\" width=\"\(f(Self.width))\" height=\"\(f(Self.laneHeight))\"/>" }
            let name = m.source.count > 34 ? "…" + String(m.source.suffix(33)) : m.source
            body += "<g><title>\(TimelineFormat.xml(m.source))</title><text class=\"lane\" x=\"10\" y=\"\(f(y + 16))\">\(TimelineFormat.xml(name))</text></g>"
            if let h = m.headline.first {
                let line = "⚠ \(TimelineFormat.ms(h.t)): \(h.text)"
                body += "<g><title>\(TimelineFormat.xml(m.headline.map { "at \(TimelineFormat.ms($0.t)): \($0.text)" }.joined(separator: "\n")))</title>"
                body += "<text class=\"alarmline\" x=\"10\" y=\"\(f(y + 32))\" font-size=\"10\">\(TimelineFormat.xml(line.count > 40 ? String(line.prefix(39)) + "…" : line))</text></g>"
            } else if let c = m.crash {
                body += "<text class=\"alarmline\" x=\"10\" y=\"\(f(y + 32))\" font-size=\"10\">crashed (\(c))</text>"
            }
            for s in m.spans where s.lane == .screen {
                let x0 = x(m, s.start)
                let w = max(x(m, s.end) - x0, 2)
                let cls = s.mark == .alarm ? "alarm" : s.mark == .warning ? "warning" : "transition"
                body += "<g><title>\(TimelineFormat.xml(s.name + (s.flag.map { "\n" + $0 } ?? "") + "\n\(TimelineFormat.ms(s.start)) – \(TimelineFormat.ms(s.end))"))</title>"
                body += "<rect class=\"\(cls)\" x=\"\(f(x0))\" y=\"\(f(y + 8))\" width=\"\(f(w))\" height=\"14\" rx=\"2\"/></g>"
            }
            for s in m.spans where s.mark == .alarm && s.lane != .screen && s.lane != .bar {
                let x0 = x(m, s.start)
                body += "<g><title>\(TimelineFormat.xml(s.name + (s.flag.map { "\n" + $0 } ?? "")))</title>"
                body += "<rect class=\"alarm\" x=\"\(f(x0))\" y=\"\(f(y + 25))\" width=\"\(f(max(x(m, s.end) - x0, 2)))\" height=\"5\"/></g>"
            }
            for i in m.instants where i.lane == .requests && i.mark == .dropped || i.category == "report" {
                let px = x(m, i.t)
                let cy = y + 36
                body += "<g><title>\(TimelineFormat.xml(i.name + "\nat \(TimelineFormat.ms(i.t))"))</title>"
                body += i.category == "report"
                    ? "<path class=\"report\" d=\"M\(f(px)) \(f(cy - 6))L\(f(px + 5)) \(f(cy + 3))L\(f(px - 5)) \(f(cy + 3))Z\"/></g>"
                    : "<path class=\"refused\" d=\"M\(f(px - 3)) \(f(cy - 3))L\(f(px + 3)) \(f(cy + 3))M\(f(px - 3)) \(f(cy + 3))L\(f(px + 3)) \(f(cy - 3))\"/></g>"
            }
            if m.crash != nil {
                let px = x(m, m.duration)
                body += "<g><title>crashed (\(TimelineFormat.xml(m.crash!)))</title><path class=\"report\" d=\"M\(f(px - 6)) \(f(y + 4))L\(f(px + 6)) \(f(y + 16))M\(f(px + 6)) \(f(y + 4))L\(f(px - 6)) \(f(y + 16))\" stroke=\"#b91c1c\" stroke-width=\"3\"/></g>"
            }
            body += "\n"
            y += Self.laneHeight
        }
        y += 12
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(f(Self.width))" height="\(f(y))" viewBox="0 0 \(f(Self.width)) \(f(y))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">
        <title>NavGuard fleet: \(models.count) traces</title>
        <style>
        .bg{fill:#fff}.shade{fill:#f3f4f6}.grid{stroke:#d1d5db;stroke-width:1}.axis{fill:#4b5563;font-size:11px}
        .lane{fill:#111827;font-weight:bold}.h1{font-size:16px;font-weight:bold;fill:#111827}.sub{fill:#4b5563}
        .alarmline{fill:#b91c1c}.transition{fill:#4c78a8}.warning{fill:#f2a93b}.alarm{fill:#d62728}
        .refused{stroke:#dc2626;stroke-width:2;fill:none}.report{fill:#d62728}
        </style>
        <rect class="bg" x="0" y="0" width="100%" height="100%"/>
        \(body)</svg>

        """
    }

    private func f(_ v: Double) -> String {
        let tenths = Int64((v * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(Double(tenths) / 10)
    }
}
