import Foundation
import VolumeKitTesting

/// The randomized sessions' known violations (README, "Known violations"): defects not fixed yet, each matched
/// exactly — the session (strategy, sample, seed) and what it shows (each event violation's kind and time, or
/// each final volume off) — so that nothing else hides under one, and each replayable with
/// `VOLUMEKIT_SESSION="STRATEGY SAMPLE SEED" swift test --filter narratedSessions`, which prints the session's
/// script, timeline and verdict. A change that alters one shows it as a violation again; one that fixes it
/// leaves its entry unused (the sweep prints how many were seen).
enum KnownSessionViolations {
    /// Event violations, by session: "kind at time; …" as ``PressOracle/Violation/summary`` begins.
    static let events: [String: String] = [
        "systemNotification 275 2177726": "missedPress at 16.1874",
        "systemNotification 2044 16186437": "missedPress at 2.095",
        // The held-out range 120,000 (never fixed against; README, "Known violations").
        "outputVolume 120186 951752934": "wrongButton at 15.896",
        "systemNotification 120186 951752934": "wrongButton at 15.896",
        "outputVolume 121145 959347255": "wrongButton at 2.1564",
        "systemNotification 121162 959481878": "systemHUD at 0.8502",
        "passive 121615 963069185": "missedPress at 1.0",
        "systemNotification 121615 963069185": "missedPress at 1.0",
        "outputVolume 121737 964035304": "phantomPress at 1.8167",
        "systemNotification 122375 969087625":
            "holdSplit at 11.9241; holdSplit at 12.0354; holdSplit at 12.1467; holdSplit at 12.258"
            + "; holdSplit at 12.3693; holdSplit at 12.4806; holdSplit at 12.5919",
        "systemNotification 123648 979168512": "phantomPress at 8.6062",
    ]

    /// Final volumes off the user's, by session: the problems as the sessions list them.
    static let finalVolumes: [String: String] = [
        "outputVolume 1804 14285877": "speaker: volume 0.0, user's 0.125",
        "outputVolume 3522 27890718": "speaker: volume 0.0625, user's 0.25",
        "systemNotification 2843 22513718": "speaker: volume 0.0625, user's 0.0",
        // The held-out range 120,000 (never fixed against; README, "Known violations").
        "outputVolume 120316 952782404": "bluetooth: volume 0.04030001, user's 0.04",
        "outputVolume 122751 972065169": "speaker: volume 0.3125, user's 0.375",
        "systemNotification 123429 977434252": "receiver: volume 0.89853513, user's 0.0",
        "outputVolume 124182 983397259": "speaker: volume 0.0625, user's 0.25",
        "outputVolume 124217 983674423": "bluetooth: volume 0.1875, user's 0.25",
        "systemNotification 124839 988600041": "headphones: volume 0.7325586, user's 0.735",
    ]

    /// What each known violation is, as far as it was analysed: the first line of its script's header.
    static let notes: [String: String] = [
        "outputVolume 1804 14285877":
            "Whole steps off (README, \"Known violations\"): sets went through a volume view not proven to take them yet — presses before the view took sets reported with their resets lost, or a restore that landed unseen and presses that came back to the value before it, read as the restore lost (issue 25's readiness).",
        "outputVolume 3522 27890718":
            "Whole steps off (README, \"Known violations\"): sets went through a volume view not proven to take them yet — presses before the view took sets reported with their resets lost, or a restore that landed unseen and presses that came back to the value before it, read as the restore lost (issue 25's readiness).",
        "systemNotification 275 2177726":
            "A missed press (README, \"Known violations\"): a press at a rail right after a hold begun before capture, in a run whose first sets went through a volume view not ready yet (issue 25's readiness); not analysed further.",
        "systemNotification 2044 16186437":
            "A missed press (README, \"Known violations\"): a press at a rail right after a hold begun before capture, in a run whose first sets went through a volume view not ready yet (issue 25's readiness); not analysed further.",
        "systemNotification 2843 22513718":
            "Whole steps off (README, \"Known violations\"): sets went through a volume view not proven to take them yet — presses before the view took sets reported with their resets lost, or a restore that landed unseen and presses that came back to the value before it, read as the restore lost (issue 25's readiness).",
        "outputVolume 120186 951752934":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a lost echo — the "
            + "anchor 0.5 set at 15.743, an up press snapped 0.499 → 0.5 at 15.819 was taken for its landing, and "
            + "the real landing at 15.893, over 0.5625, was reported as a down press.",
        "systemNotification 120186 951752934":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a lost echo — the "
            + "anchor 0.5 set at 15.743, an up press snapped 0.499 → 0.5 at 15.819 was taken for its landing, and "
            + "the real landing at 15.893, over 0.5625, was reported as a down press.",
        "outputVolume 120316 952782404":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a Control Center value "
            + "within 3e-4 of whole steps — the user's 0.04, chosen during a call, lay 3e-4 from eight steps below "
            + "their 0.5403, was taken for presses from there, and 0.0403 came back.",
        "outputVolume 121145 959347255":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a lost echo — the "
            + "anchor 0.25 set at 1.994, an up press snapped 0.2493 → 0.25 at 2.042 was taken for its landing, and "
            + "the real landing at 2.156, over 0.3125, was reported as a down press.",
        "systemNotification 121162 959481878":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a volume view not ready "
            + "— its reset 0.1 (0.706) was dropped, a headset's sync to 0.1 at 0.763 looked like that reset "
            + "landing, and VolumeKit claimed capture before the view was ready (0.947): the system HUD showed for "
            + "the press at 0.850.",
        "passive 121615 963069185":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a route change — a "
            + "Bluetooth headset's sync to 1.0 was delivered at 0.709, after the switch to the speaker at 0.7; the "
            + "speaker was taken to be at 1.0 and the route change's 0.1 ignored, so the press 0.1 → 0.1625 read as "
            + "the user's own setting.",
        "systemNotification 121615 963069185":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a route change — a "
            + "Bluetooth headset's sync to 1.0 was delivered at 0.709, after the switch to the speaker at 0.7; the "
            + "speaker was taken to be at 1.0 and the route change's 0.1 ignored, so the press 0.1 → 0.1625 read as "
            + "the user's own setting.",
        "outputVolume 121737 964035304":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a lost echo — the "
            + "restore made in the background at 1.743 (0.99976, then 1.0) landed at 1.817, after the return at "
            + "1.796 had set the anchor 0.75; no longer expected, it was reported as an up press.",
        "systemNotification 122375 969087625":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a volume view not ready "
            + "— after a launch whose first resets the view dropped, a hold's first step at 0 (11.513) was taken "
            + "for a set landing, and its auto-repeats 0.111 s apart read as eight presses.",
        "outputVolume 122751 972065169":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a route change during a "
            + "recovery — the restore's sets straddled the switch to Bluetooth at 8.48, 0.375 landing there and the "
            + "speaker left at 0.3125 (analysed in part).",
        "systemNotification 123429 977434252":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a set landed across a "
            + "route change — 0.8985, set on the speaker, landed on the receiver 2 ms after the switch and was "
            + "taken for the receiver's own volume, though the route change said 0.",
        "systemNotification 123648 979168512":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): another source — a "
            + "headset's sync to 1.0 during a call, notified at 8.606, 5 ms after the session came back and read "
            + "1.0, was reported as an up press at the top.",
        "outputVolume 124182 983397259":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): presses VolumeKit could "
            + "not see — during an interruption, then after a crash — took the speaker from its held 0.25 to 0 and "
            + "back to 0.25, which the recovery read as its own anchor untouched: perhaps a limit no app avoids "
            + "(analysed in part).",
        "outputVolume 124217 983674423":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a volume view not ready "
            + "— a headset's sync to 0.25 matched VolumeKit's dropped sets of 0.25 and was not taken as the user's; "
            + "the first down press, 0.25 → 0.1875, became the user's volume (analysed in part).",
        "systemNotification 124839 988600041":
            "Held out (range 120,000, never fixed against; README, \"Known violations\"): a volume view not ready "
            + "— a crash mid-hold left a nudge 0.0024 below the user's volume, presses unseen carried it, and every "
            + "restore after the launch went through a view that took 1 s to be ready and was dropped.",
    ]

    /// The key of a session: "outputVolume 241 1908479".
    static func key(_ strategy: SimulatedStrategy, sample: Int, seed: UInt64) -> String {
        "\(strategy.rawValue) \(sample) \(seed)"
    }

    /// The known sessions of `strategy` that a sweep of `samples` × `sessions` runs (events or final volumes):
    /// sample K's sessions have the seeds K × 7919 + 0, 1, ….
    static func keys(_ strategy: SimulatedStrategy, samples: Range<Int>, sessions: Int) -> Set<String> {
        Set(events.keys).union(finalVolumes.keys).filter { key in
            let words = key.split(separator: " ")
            guard words.count == 3, words[0] == strategy.rawValue, let sample = Int(words[1]),
                let seed = UInt64(words[2]), samples.contains(sample)
            else { return false }
            let index = seed &- UInt64(sample) &* 7919
            return index < UInt64(sessions)
        }
    }

    /// Whether `violations` are exactly the known event violations of the session `key`.
    static func isKnown(_ key: String, events violations: [PressOracle.Violation]) -> Bool {
        guard let known = events[key], !violations.isEmpty else { return false }
        return violations.map { $0.summary.components(separatedBy: ":").first ?? "" }.joined(separator: "; ") == known
    }

    /// Whether `problems` are exactly the known final-volume problems of the session `key`.
    static func isKnown(_ key: String, finalVolumes problems: [String]) -> Bool {
        guard let known = finalVolumes[key], !problems.isEmpty else { return false }
        return problems.joined(separator: "; ") == known
    }
}
