import ObserverCore

/// A shopping app registers for push notifications; its analytics SDK and its messaging
/// SDK both need the device token.
///
/// Buggy (the "two SDKs both set the notification delegate" report): each SDK assigns the
/// registrar's single `onDeviceToken` callback when it is configured; the messaging SDK,
/// configured second, replaces the analytics SDK's callback, so analytics never learns a
/// token. Correct: the registrar publishes the token as an observable value that each SDK
/// observes with its own registration.
enum PushTokenApp {
    static let app = FieldApp(
        name: "push-token-sdks",
        summary: "a shopping app's analytics and messaging SDKs both need the push device token",
        bug: "each SDK assigns the registrar's single onDeviceToken callback; the second replaces the first",
        fix: "the registrar publishes the token as an observable value each SDK observes",
        expectedCodes: ["OJ001"],
        story: story
    )

    static func story(_ variant: FieldVariant, _ registry: ObserverRegistry, _ script: AppScript) {
        let registrar = PushRegistrar(registry: registry)
        var analytics: AnalyticsSDK? = AnalyticsSDK()
        var messaging: MessagingSDK? = MessagingSDK()
        script.ui {
            analytics?.configure(registrar: registrar, variant: variant)
            messaging?.configure(registrar: registrar, variant: variant)
        }
        script.ui { registrar.didRegister(token: "a1b2c3") }
        script.ui { registrar.didRegister(token: "d4e5f6") }  // the token rotated
        script.ui {
            analytics = nil
            messaging = nil
        }
    }

    final class PushRegistrar {
        let registry: ObserverRegistry
        lazy var onDeviceToken = CallbackProperty<String>(subject: self, key: "onDeviceToken", registry: registry)
        lazy var deviceToken = ObservableValue("", subject: self, key: "deviceToken", registry: registry)
        init(registry: ObserverRegistry) { self.registry = registry }

        func didRegister(token: String) {
            onDeviceToken.call(token)
            deviceToken.set(token)
        }
    }

    final class AnalyticsSDK {
        private var tokens: [ObservationToken] = []
        private(set) var token = ""

        func configure(registrar: PushRegistrar, variant: FieldVariant) {
            switch variant {
            case .buggy:
                registrar.onDeviceToken.assign(owner: self) { sdk, token in sdk.token = token }  // [site:analytics]
            case .correct:
                tokens.append(registrar.deviceToken.observe(owner: self, options: [.new]) { sdk, change in
                    sdk.token = change.new ?? ""
                })
            }
        }
    }

    final class MessagingSDK {
        private var tokens: [ObservationToken] = []
        private(set) var token = ""

        func configure(registrar: PushRegistrar, variant: FieldVariant) {
            switch variant {
            case .buggy:
                registrar.onDeviceToken.assign(owner: self) { sdk, token in sdk.token = token }  // [site:messaging]
            case .correct:
                tokens.append(registrar.deviceToken.observe(owner: self, options: [.new]) { sdk, change in
                    sdk.token = change.new ?? ""
                })
            }
        }
    }
}
