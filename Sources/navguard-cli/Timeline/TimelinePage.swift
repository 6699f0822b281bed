// SPDX-License-Identifier: Apache-2.0
/// The timeline as a self-contained HTML page for people without Perfetto:
/// the SVG inline (with several traces, the fleet's one-lane-each picture
/// first, then each trace's own), then the guards' reports in full (the
/// picture shows only their first lines). No scripts, no external fonts or
/// styles.
enum TimelinePage {
    static func html(_ models: [TimelineModel], fleet: String?, pictures: [String]) -> String {
        let title = models.count == 1 ? models[0].source : "\(models.count) traces"
        var s = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>NavGuard timeline: \(TimelineFormat.xml(title))</title>
        <style>
        body{margin:16px;font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#111827;background:#fff}
        .picture{overflow-x:auto;margin-bottom:18px}
        h2{font-size:15px;margin:20px 0 6px}
        pre{background:#f3f4f6;padding:8px 10px;border-left:4px solid #d62728;overflow-x:auto;font-size:12px}
        </style>
        </head>
        <body>

        """
        if let fleet { s += "<div class=\"picture\">\n\(fleet)</div>\n" }
        for (m, picture) in zip(models, pictures) {
            s += "<div class=\"picture\">\n\(picture)</div>\n"
            if !m.reports.isEmpty {
                s += "<h2>Reports (\(m.reports.count))\(models.count > 1 ? " — \(TimelineFormat.xml(m.source))" : "")</h2>\n"
                for r in m.reports {
                    s += "<pre>at \(TimelineFormat.ms(r.t)), \(TimelineFormat.xml(r.guardID)):\n\(TimelineFormat.xml(r.text))</pre>\n"
                }
            }
        }
        return s + "</body>\n</html>\n"
    }
}
