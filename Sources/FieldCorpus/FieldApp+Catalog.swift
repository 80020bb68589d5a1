extension FieldApp {
    /// Every app of the corpus, in the order the runner lists them.
    package static let all: [FieldApp] = [
        ChatUnreadBadgeApp.app,
        CommentsKeyboardApp.app,
        ProfileViewModelApp.app,
        SearchTokenApp.app,
        MapStrongCaptureApp.app,
        PodcastPlayerItemApp.app,
        ConversationReloadApp.app,
        ReachabilityReassignApp.app,
        PushTokenApp.app,
        KeyboardHandOverApp.app,
        DeliveryMapApp.app,
        ChatSocketApp.app,
        FrameMetricsApp.app,
        ThemeRenderApp.app,
        TipCalculatorApp.app,
        ToastTokenApp.app,
        SettingsKeyTypoApp.app,
        SessionExpiryTypoApp.app,
        FormKeyboardApp.app,
        CheckoutHookApp.app,
        HeartbeatApp.app,
        StockTickerApp.app,
        PriceFilterApp.app,
    ]
}
