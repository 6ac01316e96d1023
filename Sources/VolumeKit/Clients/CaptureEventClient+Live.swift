#if os(iOS)
import AVKit
import UIKit

extension CaptureEventClient {
    /// `AVCaptureEventInteraction` attached to `view`, which must be in the responder chain of an app that is
    /// actively using the camera (iOS 17.2+). Events reach the app only then: "events will only be sent to
    /// applications that are actively using the camera"; Signal-iOS notes an `AVCaptureVideoPreviewLayer` must
    /// be on screen (`shared/facts/volume-buttons.md` §3). Without a view, or before iOS 17.2, it is unavailable.
    public static func live(attachingTo view: UIView?) -> CaptureEventClient {
        let host = WeakView(view)
        return CaptureEventClient(
            isAvailable: {
                guard #available(iOS 17.2, *) else { return false }
                return host.exists
            },
            observe: { handler in
                guard #available(iOS 17.2, *) else { return .none }
                let interaction = Locked<UIInteraction?>(nil)
                onMain {
                    guard let host = host.view else { return }
                    let made = AVCaptureEventInteraction(
                        primary: { event in
                            handler(CaptureEvent(source: .primary, phase: CaptureEventPhase(event.phase)))
                        },
                        secondary: { event in
                            handler(CaptureEvent(source: .secondary, phase: CaptureEventPhase(event.phase)))
                        }
                    )
                    host.addInteraction(made)
                    interaction.withLock { $0 = made }
                }
                return CancellationHandle {
                    onMain {
                        // Removing the interaction restores the system's button behaviour.
                        if let made = interaction.current { made.view?.removeInteraction(made) }
                    }
                }
            }
        )
    }
}

/// A weak reference to a view that closures on any thread may carry; the view is only touched on the main actor.
private final class WeakView: @unchecked Sendable {
    private let lock = NSLock()
    private weak var stored: UIView?

    init(_ view: UIView?) { stored = view }

    /// Whether the view still exists.
    var exists: Bool { lock.withLock { stored != nil } }

    /// The view, on the main actor.
    @MainActor var view: UIView? { lock.withLock { stored } }
}

extension CaptureEventPhase {
    @available(iOS 17.2, *)
    init(_ phase: AVCaptureEventPhase) {
        switch phase {
        case .began: self = .began
        case .ended: self = .ended
        case .cancelled: self = .cancelled
        @unknown default: self = .cancelled
        }
    }
}
#endif
