package io.sluice.checkpoint;

/**
 * A state file could be read but is not intact: wrong marker, unknown format version, wrong
 * length or checksum mismatch. Retrying will not help; restore from an earlier checkpoint.
 */
public class CorruptStateFileException extends CorruptCheckpointException {
    private final String path;

    public CorruptStateFileException(String path, String problem) {
        super("State file " + path + " is corrupt: " + problem);
        this.path = path;
    }

    /** The storage path of the state file. */
    public String path() {
        return path;
    }
}
