package io.sluice.storage;

import java.util.Locale;

/** The kinds of {@link BlobStore} operation that are counted and timed. */
public enum BlobOp {
    GET, PUT, EXISTS, LIST,
    /**
     * {@link BlobStore#delete(String)}, {@link BlobStore#deleteRecursively(String)} and
     * {@link BlobStore#discardUnfinishedWrites}.
     */
    DELETE;

    /** The lowercase name used in metric tags and messages, for example {@code "get"}. */
    public String tagValue() {
        return name().toLowerCase(Locale.ROOT);
    }
}
