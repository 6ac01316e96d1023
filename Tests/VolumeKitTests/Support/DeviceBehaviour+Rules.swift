import VolumeKitTesting

extension DeviceBehaviour {
    /// The default behaviour with each of `rules` ("name=value", as `volumekit simulate --set` takes them) set.
    init(rules: [String]) throws {
        self.init()
        for rule in rules { try set(rule) }
    }
}
