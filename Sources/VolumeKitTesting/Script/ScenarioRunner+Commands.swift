import VolumeKitCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What each script line does on the device and to the app.
extension ScenarioRunner {
    func perform(_ command: Scenario.Command, on device: SimulatedDevice) throws {
        switch command {
        case .ios, .device, .volume, .headphones:
            break
        case .start:
            // A second `start` restarts the app's features rather than leaving the first ones running.
            stopApp()
            startMute(on: device)
            startApp(on: device)
        case .startFeature(let feature):
            stopApp()
            switch feature {
            case .buttons: startApp(on: device, withHUD: false)
            case .hud: startHUD(on: device)
            case .mute: startMute(on: device)
            }
        case .stop:
            stopApp()
        case .press(let button, let count, let every):
            for _ in 0..<count {
                device.press(button)
                try pass(every, on: device)
            }
        case .hold(let button, let seconds, let waits):
            device.hold(button, for: seconds)
            if waits { try pass(seconds, on: device) }
        case .wait(let seconds):
            try pass(seconds, on: device)
        case .slider(let value):
            device.controlCenterSlider(value)
            try pass(device.controlCenterTime(), on: device)
        case .drag(let value):
            device.controlCenterDrag(value)
            try pass(device.controlCenterTime(drag: .series), on: device)
        case .siri(let seconds):
            device.siri(for: seconds)
            try pass(seconds, on: device)
        case .alarm(let seconds, let sendsEnd):
            device.alarm(for: seconds, sendsEnd: sendsEnd)
            try pass(seconds, on: device)
        case .takeover(let component):
            device.takeOverSession(by: component)
        case .camera(let running):
            if running { device.startCamera() } else { device.stopCamera() }
        case .silent(let on):
            device.setSilentMode(on: on)
        case .background:
            device.background()
        case .foreground:
            device.foreground()
        case .interrupt(let began):
            device.interruption(began: began)
        case .call(let began):
            device.phoneCall(began: began)
        case .route(let route):
            device.connect(route)
        case .routeDevice(let route, let name):
            device.connect(route, device: name)
        case .crash:
            endCaptureWindow()
            traceRecorder?.mark("the app crashed")
            runningFeatures = []
            device.crash()
            mute = nil
            engine = nil
            baseline = nil
            hud = nil
        case .launch:
            endCaptureWindow()
            traceRecorder?.mark("the app launched again")
            runningFeatures = []
            device.launch()
            recoverAtLaunch(on: device)
            mute = nil
            engine = nil
            baseline = nil
            hud = nil
        case .mute(let on):
            device.setMuteSwitch(on: on)
        case .mediaReset:
            device.resetMediaServices()
        case .headset(let button, let count, let every):
            for _ in 0..<count {
                device.headsetPress(button)
                try pass(every, on: device)
            }
        case .bluetoothConnect(let value):
            device.connectBluetooth(syncingTo: value)
        case .bluetoothSync(let value):
            device.bluetoothSync(value)
        case .safetyLowering:
            device.headphoneSafetyLowering()
        }
    }
}
