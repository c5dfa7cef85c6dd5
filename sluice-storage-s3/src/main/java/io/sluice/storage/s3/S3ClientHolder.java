package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import java.util.function.Supplier;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The SDK client of one {@link S3BlobStore}, built on first use (so that constructing a store does no
 * I/O: the region and credential lookup run on the first call's I/O thread) with every wait bounded
 * from {@link S3Options}: connect and socket timeouts, a per-attempt and a per-call timeout, and the
 * retry count with exponential backoff (no client-wide retry budget). After {@link #close} it refuses
 * to build a new client ({@link IllegalStateException}, which the store reports as unavailable).
 *
 * <p>Threading: thread-safe.
 */
final class S3ClientHolder implements AutoCloseable {
    private final S3Location location;
    private final Supplier<S3Client> builder;
    private final Object clientLock = new Object();
    private volatile S3Client client; // created on first use (guarded by clientLock)
    private boolean closed;           // guarded by clientLock

    /** The client of {@link S3Clients#build}. */
    S3ClientHolder(S3Location location, Configuration options) {
        this(location, () -> S3Clients.build(options, location.toString()));
    }

    /** The client {@code builder} builds on first use. */
    S3ClientHolder(S3Location location, Supplier<S3Client> builder) {
        this.location = location;
        this.builder = builder;
    }

    /** The client of {@link S3Clients#buildForCompletions}, for CompleteMultipartUpload. */
    static S3ClientHolder forCompletions(S3Location location, Configuration options) {
        return new S3ClientHolder(location, () -> S3Clients.buildForCompletions(options, location.toString()));
    }

    /** The client, built on the first call; fails once closed. */
    S3Client client() {
        S3Client c = client;
        if (c != null) {
            return c;
        }
        synchronized (clientLock) {
            if (closed) {
                throw new IllegalStateException("the S3 store " + location + " is closed");
            }
            if (client == null) {
                client = buildClient();
            }
            return client;
        }
    }

    /** Releases the client's connection pool. Idempotent. */
    @Override
    public void close() {
        S3Client c;
        synchronized (clientLock) {
            closed = true;
            c = client;
            client = null;
        }
        if (c != null) {
            c.close();
        }
    }

    private S3Client buildClient() {
        return builder.get();
    }
}
