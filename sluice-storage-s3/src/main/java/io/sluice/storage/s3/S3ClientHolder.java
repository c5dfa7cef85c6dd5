package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.retries.api.BackoffStrategy;
import software.amazon.awssdk.services.s3.LegacyMd5Plugin;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

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
    private final Configuration options;
    private final Object clientLock = new Object();
    private volatile S3Client client; // created on first use (guarded by clientLock)
    private boolean closed;           // guarded by clientLock

    S3ClientHolder(S3Location location, Configuration options) {
        this.location = location;
        this.options = options;
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
        String endpoint = options.get(S3Options.ENDPOINT);
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(ApacheHttpClient.builder()
                        .connectionTimeout(options.get(S3Options.CONNECT_TIMEOUT))
                        .socketTimeout(options.get(S3Options.SOCKET_TIMEOUT))
                        .connectionAcquisitionTimeout(options.get(S3Options.CONNECT_TIMEOUT))
                        .maxConnections(options.get(S3Options.MAX_CONNECTIONS)))
                .forcePathStyle(options.get(S3Options.PATH_STYLE_ACCESS))
                // Checksums only where the API requires them: S3-compatible stores reject the newer default
                // (flexible checksums on every PUT) with HTTP 400.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // Content-MD5 as well where a checksum is required (DeleteObjects), for S3-compatible stores
                // that predate flexible checksums.
                .addPlugin(LegacyMd5Plugin.create())
                .overrideConfiguration(overrideConfiguration());
        if (!endpoint.isEmpty()) {
            builder.endpointOverride(URI.create(endpoint));
        }
        builder.region(region(endpoint));
        String accessKey = options.get(S3Options.ACCESS_KEY);
        AwsCredentialsProvider credentials = accessKey.isEmpty()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, options.get(S3Options.SECRET_KEY)));
        builder.credentialsProvider(credentials);
        return builder.build();
    }

    /** The timeouts and the retry strategy of every call. */
    private ClientOverrideConfiguration overrideConfiguration() {
        return ClientOverrideConfiguration.builder()
                .apiCallAttemptTimeout(options.get(S3Options.API_CALL_ATTEMPT_TIMEOUT))
                .apiCallTimeout(options.get(S3Options.API_CALL_TIMEOUT))
                .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                        .maxAttempts(options.get(S3Options.MAX_RETRIES) + 1)
                        .backoffStrategy(BackoffStrategy.exponentialDelay(
                                options.get(S3Options.RETRY_BASE_DELAY), options.get(S3Options.RETRY_MAX_DELAY)))
                        // No client-wide retry budget: every call gets its configured retries, so the
                        // bound on a call does not depend on how many failed before it.
                        .circuitBreakerEnabled(false)
                        .build())
                .build();
    }

    private Region region(String endpoint) {
        String configured = options.get(S3Options.REGION);
        if (!configured.isEmpty()) {
            return Region.of(configured);
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (RuntimeException e) {
            if (!endpoint.isEmpty()) {
                return Region.US_EAST_1; // S3-compatible stores mostly ignore the region, but signing needs one
            }
            throw new IllegalStateException("no AWS region: set " + S3Options.REGION.key() + " (or AWS_REGION) for "
                    + location + " (" + e.getMessage() + ")", e);
        }
    }
}
