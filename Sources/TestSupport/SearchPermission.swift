import Foundation
import SystemShim

/// Whether `path` can be reached by a user who is neither its owner's group member nor
/// root: tests that run a command as another user (`setpriv --reuid=65534
/// --clear-groups`) need every directory from `/` down to the file to grant that user
/// search (`x`), which a 0700 temporary directory (macOS's per-user `TMPDIR`, many CI
/// runners') does not.
///
/// Decided from the modes and owners alone, for a user with no supplementary groups:
/// the owner's bits if `uid` owns a directory, the group's if `gid` is its group, the
/// others' otherwise.
package func isSearchable(_ path: String, byUID uid: UInt32, gid: UInt32) -> Bool {
    var directory = URL(fileURLWithPath: path).standardizedFileURL
    var directories: [String] = []
    while true {
        directories.append(directory.path)
        if directory.path == "/" { break }
        directory.deleteLastPathComponent()
    }
    for directory in directories {
        var status = stat()
        guard unsafe stat(directory, &status) == 0 else { return false }
        let mode = status.st_mode
        let bit: mode_t = status.st_uid == uid ? S_IXUSR : status.st_gid == gid ? S_IXGRP : S_IXOTH
        if mode & bit == 0 { return false }
    }
    return true
}
