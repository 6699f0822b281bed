// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CNavGuard

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the library version and the plugin ABI.")

    func run() throws {
        setDefaultPluginDirectory()
        let lib = String(cString: ng_version_string())
        print("navguard \(lib)")
        print("library: \(lib) (ng_version() = \(ng_version()); built with navguard.h \(NG_VERSION_STRING))")
        print("plugin ABI: \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR) (entry symbol \(NG_PLUGIN_ENTRY_SYMBOL))")
        print("plugin directory: \(String(cString: ng_plugin_dir()))")
    }
}
