/// Log levels shared by every layer; the core only reports, the CLI decides where lines go.
/// `notice` is for lifecycle events (start, reload, stop, a device coming or going): the log
/// never folds them away, however often they repeat.
public enum LogLevel: Int, Sendable, Comparable, CustomStringConvertible {
    case debug = 0, info, notice, warning, error

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    public var description: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .notice: return "notice"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    public init?(name: String) {
        switch name {
        case "debug": self = .debug
        case "info": self = .info
        case "notice": self = .notice
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }
}

public typealias LogFunction = (LogLevel, String) -> Void
