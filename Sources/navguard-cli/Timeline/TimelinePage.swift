/// The timeline as a self-contained HTML page for people without Perfetto:
/// the SVG inline, then the guards' reports in full (the picture shows only
/// their first lines). No scripts, no external fonts or styles.
enum TimelinePage {
    static func html(_ m: TimelineModel, source: String, svg: String) -> String {
        var s = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>NavGuard timeline: \(TimelineFormat.xml(source))</title>
        <style>
        body{margin:16px;font-family:"DejaVu Sans",Helvetica,Arial,sans-serif;color:#111827;background:#fff}
        .picture{overflow-x:auto}
        h2{font-size:15px;margin:20px 0 6px}
        pre{background:#f3f4f6;padding:8px 10px;border-left:4px solid #d62728;overflow-x:auto;font-size:12px}
        </style>
        </head>
        <body>
        <div class="picture">
        \(svg)</div>

        """
        if !m.reports.isEmpty {
            s += "<h2>Reports (\(m.reports.count))</h2>\n"
            for r in m.reports {
                s += "<pre>at \(TimelineFormat.ms(r.t)), \(TimelineFormat.xml(r.guardID)):\n\(TimelineFormat.xml(r.text))</pre>\n"
            }
        }
        return s + "</body>\n</html>\n"
    }
}
