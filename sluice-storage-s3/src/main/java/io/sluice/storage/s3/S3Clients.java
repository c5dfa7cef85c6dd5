package io.sluice.storage.s3;

import io.sluice.config.Configuration;
import java.net.URI;
import java.time.Duration;
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
 * Builds the SDK clients of Sluice's S3 code (the checkpoint store's {@link S3ClientHolder} and the
 * S3 file sink) from {@link S3Options}, with every wait bounded: connect and socket timeouts, a
 * per-attempt and a per-call timeout, and the retry count with exponential backoff (no client-wide
 * retry budget). Building looks up the region and credentials, which may do I/O: callers build on
 * an I/O thread.
 *
 * <p>Threading: stateless; any thread.
 */
public final class S3Clients {
    private S3Clients() {}

    /**
     * A client for {@code options}; {@code what} names the store or sink in the error when no region
     * can be found ({@code "s3://bucket/prefix"}).
     */
    public static S3Client build(Configuration options, String what) {
        return build(options, what, options.get(S3Options.SOCKET_TIMEOUT),
                options.get(S3Options.API_CALL_ATTEMPT_TIMEOUT), options.get(S3Options.API_CALL_TIMEOUT));
    }

    /**
     * A client for CompleteMultipartUpload and CopyObject only: like {@link #build}, but the socket timeout and the attempt timeout
     * are {@code s3.complete-upload-timeout}, and the call timeout that times {@code s3.max-retries} + 1. S3 may
     * take minutes to assemble a large object (it answers 200 at once and then keeps the connection open, sending
     * whitespace, until the result), and an S3-compatible store may send nothing until it is done: with the
     * ordinary timeouts of a few seconds, completing a large upload would be cut off and retried until it fails.
     */
    public static S3Client buildForCompletions(Configuration options, String what) {
        Duration complete = options.get(S3Options.COMPLETE_UPLOAD_TIMEOUT);
        return build(options, what, complete, complete,
                complete.multipliedBy(options.get(S3Options.MAX_RETRIES) + 1L));
    }

    private static S3Client build(Configuration options, String what, Duration socketTimeout, Duration attemptTimeout,
                                  Duration callTimeout) {
        String endpoint = options.get(S3Options.ENDPOINT);
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(ApacheHttpClient.builder()
                        .connectionTimeout(options.get(S3Options.CONNECT_TIMEOUT))
                        .socketTimeout(socketTimeout)
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
                .overrideConfiguration(overrideConfiguration(options, attemptTimeout, callTimeout));
        if (!endpoint.isEmpty()) {
            builder.endpointOverride(URI.create(endpoint));
        }
        builder.region(region(options, endpoint, what));
        String accessKey = options.get(S3Options.ACCESS_KEY);
        AwsCredentialsProvider credentials = accessKey.isEmpty()
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, options.get(S3Options.SECRET_KEY)));
        builder.credentialsProvider(credentials);
        return builder.build();
    }

    /** The timeouts and the retry strategy of every call. */
    private static ClientOverrideConfiguration overrideConfiguration(Configuration options, Duration attemptTimeout,
                                                                     Duration callTimeout) {
        return ClientOverrideConfiguration.builder()
                .apiCallAttemptTimeout(attemptTimeout)
                .apiCallTimeout(callTimeout)
                .addExecutionInterceptor(AttemptCounter.INSTANCE)
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

    private static Region region(Configuration options, String endpoint, String what) {
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
                    + what + " (" + e.getMessage() + ")", e);
        }
    }
}
