/// `word` as one word of a POSIX shell command line: as it is when the shell would neither
/// split nor expand it, else in single quotes (each quote inside closed, escaped and
/// reopened). For the commands messages suggest, which a person pastes as shown: a path
/// with a space or a `$` must still name that file.
package func shellQuoted(_ word: String) -> String {
    let safe = word.unicodeScalars.allSatisfy { scalar in
        scalar.isASCII && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "-_./=:,+@%".unicodeScalars.contains(scalar))
    }
    if safe && !word.isEmpty { return word }
    return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
