/// Keeping a value inside a range: a level a speaker is asked for, kept to the range the device declared.
extension ClosedRange {
    /// `value`, or the bound it lies beyond.
    func clamped(_ value: Bound) -> Bound {
        Swift.min(Swift.max(value, lowerBound), upperBound)
    }
}
