import VolumeKitCore

extension CalibrationEstimate {
    /// The round trip's estimate after `measurements`, each added in the envelope's range of ``CalibrationRule/roundTrip``
    /// as the calibration machine adds them: what the headroom, echo and retry policies are given.
    static func roundTrips(_ measurements: [Double]) -> CalibrationEstimate {
        var estimate = CalibrationEstimate()
        for value in measurements { estimate.add(value, range: CalibrationRule.roundTrip.range) }
        return estimate
    }
}
