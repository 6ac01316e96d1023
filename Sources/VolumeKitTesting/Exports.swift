@_exported import VolumeKitCore
