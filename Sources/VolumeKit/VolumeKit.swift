// The iOS live layer. Every other file in this module is wrapped in `#if os(iOS)`; on Linux the module
// only re-exports the platform-free core, so `import VolumeKit` works everywhere.
@_exported import VolumeKitCore
