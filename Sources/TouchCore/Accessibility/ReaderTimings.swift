/// The screen reader's gesture figures. Apple publishes none of VoiceOver's, so each is chosen
/// here from what is documented or measured elsewhere (docs/accessibility.md "Timings" says the
/// same with its sources); times in microseconds, distances in the output's points.
public struct ReaderTimings: Sendable, Equatable {
    /// The longest pause from a tap's lift to the next touch-down of a double tap: VoiceOver's
    /// own setting, Settings › Accessibility › VoiceOver › Double-tap Timeout, defaults to
    /// 0.25 s (range 0.20–0.50 s; Perkins School for the Blind, "Changing Double Tap Speed in
    /// iOS 9.1"). The two-finger double tap (magic tap) uses it too.
    public var doubleTapInterval: Int64 = 250_000
    /// The longest touch that is a tap: Fuchsia's screen reader, a11y gesture manager
    /// `kMaxTapDuration` (300 ms). A finger held still longer starts exploring.
    public var tapDuration: Int64 = 300_000
    /// How far a tap's finger may move: Mozilla's AccessFu (Firefox OS's VoiceOver-like screen
    /// reader) allowed 0.2 inch (`TAP_MAX_RADIUS`); 20 points is 0.15 inch at an iPhone's 163
    /// points per inch and 0.15 inch on a 7-inch 800×480 panel (133 per inch). Beyond it, a
    /// finger that is not flicking explores.
    public var tapSlop: Double = 20
    /// A flick covers this much within `flickTime` of its touch-down: Android's touch explorer
    /// (AOSP, accessibility `Swipe`: `GESTURE_CONFIRM_CM` = 1 cm in `MAX_TIME_TO_START_SWIPE_MS`
    /// = 150 ms, "determined by measuring … all gestures started with the initial movement
    /// taking less than 100ms; when touch exploring, the first movement almost always takes
    /// longer than 200ms"). 1 cm is 52 points on a 7-inch 800×480 panel, 64 on an iPhone: 50.
    public var flickDistance: Double = 50
    public var flickTime: Int64 = 150_000
    /// A swipe lifts within this time of its touch-down, else it was exploration: Fuchsia's
    /// `kMaxSwipeDuration` (500 ms, one-finger and multi-finger swipes alike).
    public var swipeDuration: Int64 = 500_000
    /// Double tap and hold: the second touch held still this long passes through. VoiceOver
    /// plays its tones after about half a second; Fuchsia's `kMinDragDuration` and AccessFu's
    /// `DWELL_THRESHOLD` are both 500 ms.
    public var holdDuration: Int64 = 500_000
    /// The fingers of one multi-finger gesture land within this time of the first: Fuchsia's
    /// `kMaxSecondFingerDownDelay` (300 ms).
    public var fingerWindow: Int64 = 300_000
    /// The scrub (escape): two fingers moved back and forth quickly, "like drawing a Z"
    /// (Accessibility up to 11, "365 days of iOS accessibility", day 196); "fast and small,
    /// covering a space of only an inch or two … if the movement is too slow, it will not be
    /// recognized" (Perkins School for the Blind, "2-Finger scrub gesture"). Here: the fingers' mean horizontal movement turns back at
    /// least twice (three legs), each leg at least `scrubLeg` points (about a quarter inch),
    /// all within `scrubDuration` (slower is not a scrub).
    public var scrubLeg: Double = 40
    public var scrubLegs = 3
    public var scrubDuration: Int64 = 1_500_000
    /// A swipe's direction is the axis its movement is at least this many times longer along
    /// than across (within 26.6° of it); a diagonal flick is no swipe.
    public var directness: Double = 2
    public init() {}
}
