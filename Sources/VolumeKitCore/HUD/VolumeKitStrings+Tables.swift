/// The string tables, one a language: the words VoiceOver speaks, keyed as ``VolumeKitStrings`` looks them up.
///
/// They are code rather than `.lproj` resources so that every platform reads the same tables without a
/// resource bundle: on Linux the bundle's accessor alone would link swift-corelibs-foundation
/// (docs/decisions/cli.md, "On Linux VolumeKit builds on FoundationEssentials"). `%ld` is the whole percent 0–100, `%%` a percent sign. A translator
/// edits a table here; `VolumeKitStringsTests` checks that each has every key and keeps `%ld`.
extension VolumeKitStrings {
    static let tables: [Language: [String: String]] = [
        // English, the development language, and the fallback for a missing key.
        .english: [
            "hud.label": "Volume",
            "hud.value": "%ld percent",
            "hud.announcement": "Volume %ld percent",
            "hud.announcement.maximum": "Volume %ld percent, maximum",
            "hud.announcement.minimum": "Volume %ld percent, minimum",
            "mute.silent": "Silent mode on",
            "mute.ringing": "Silent mode off",
            "mute.unknown": "Silent mode unknown",
            "mute.unavailable": "No Ring/Silent switch",
        ],
        // VolumeKit 的旁白（VoiceOver）文字，简体中文。%ld 为整数百分比（0–100）。
        .simplifiedChinese: [
            "hud.label": "音量",
            "hud.value": "%ld%%",
            "hud.announcement": "音量 %ld%%",
            "hud.announcement.maximum": "音量 %ld%%，已是最大",
            "hud.announcement.minimum": "音量 %ld%%，已是最小",
            "mute.silent": "静音模式已开启",
            "mute.ringing": "静音模式已关闭",
            "mute.unknown": "无法判断静音模式",
            "mute.unavailable": "没有响铃/静音开关",
        ],
        // VolumeKit 的 VoiceOver 文字，繁體中文。%ld 為整數百分比（0–100）。
        .traditionalChinese: [
            "hud.label": "音量",
            "hud.value": "%ld%%",
            "hud.announcement": "音量 %ld%%",
            "hud.announcement.maximum": "音量 %ld%%，已是最大",
            "hud.announcement.minimum": "音量 %ld%%，已是最小",
            "mute.silent": "靜音模式已開啟",
            "mute.ringing": "靜音模式已關閉",
            "mute.unknown": "無法判斷靜音模式",
            "mute.unavailable": "沒有響鈴/靜音切換開關",
        ],
        // VolumeKit의 VoiceOver 문구, 한국어. %ld는 0–100의 정수 백분율입니다.
        .korean: [
            "hud.label": "음량",
            "hud.value": "%ld%%",
            "hud.announcement": "음량 %ld%%",
            "hud.announcement.maximum": "음량 %ld%%, 최대",
            "hud.announcement.minimum": "음량 %ld%%, 최소",
            "mute.silent": "무음 모드 켬",
            "mute.ringing": "무음 모드 끔",
            "mute.unknown": "무음 모드를 알 수 없음",
            "mute.unavailable": "벨소리/무음 스위치 없음",
        ],
    ]
}
