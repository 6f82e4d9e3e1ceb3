import Foundation

/// Reading whole files for the readers (they parse bytes; this is the only I/O in the module).
public func readFileBytes(_ path: String) throws(CaptureError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            throw CaptureError(file: path, line: 0, message: isDir.boolValue ? "is a directory" : "cannot be read (permission denied?)")
        }
        throw CaptureError(file: path, line: 0, message: "no such file")
    }
    return [UInt8](data)
}

func fileExists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}
