package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.storage.BlobContent;
import java.net.URI;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * A checkpoint file written as a multipart upload whose create the SDK retried: S3 carried out the first attempt,
 * but its answer was lost (turned into HTTP 500 on the client here, as a cut connection or a timed-out attempt
 * would lose it on S3), so the retry created a second upload. The put completes the second; the first is aborted
 * rather than left open for ever (it was before the store counted the create's attempts).
 */
class S3RetriedCreateTest {
    private static final String BUCKET = "bucket";

    @Test
    void anUploadCreatedByAnAttemptWhoseAnswerWasLostIsAbortedOnceTheRetrySucceeds() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(BUCKET);
             S3Client reader = client(server, null)) {
            LoseFirstCreateAnswer lose = new LoseFirstCreateAnswer();
            S3Location location = new S3Location("s3://" + BUCKET + "/checkpoints");
            S3ClientHolder clients = new S3ClientHolder(location, () -> client(server, lose));
            AtomicLong apiCalls = new AtomicLong();
            S3KeyListing keys = new S3KeyListing(io.sluice.storage.StorageException.CHECKPOINT_STORAGE, location, clients, apiCalls, 1000, 1000);
            S3Uploads uploads = new S3Uploads(location, clients, clients, keys, apiCalls, 1024, 5 * 1024 * 1024);
            byte[] data = new byte[64 * 1024];
            new java.util.Random(7).nextBytes(data);

            uploads.put("job/chk-1/file", location.key("job/chk-1/file"), BlobContent.of(data));

            assertThat(lose.lost.get()).as("the first create's answer was lost, the SDK retried").isOne();
            assertThat(server.objectBytes(BUCKET, "checkpoints/job/chk-1/file")).isEqualTo(data);
            List<String> open = reader.listMultipartUploads(b -> b.bucket(BUCKET).prefix("checkpoints/")).uploads()
                    .stream().map(MultipartUpload::uploadId).toList();
            assertThat(open).as("uploads left open").isEmpty();
            clients.close();
        }
    }

    /** A client of the server as the store builds one (retries, the attempt counter), with {@code extra} too. */
    private static S3Client client(S3ProxyServer server, ExecutionInterceptor extra) {
        return S3Client.builder().endpointOverride(URI.create(server.endpoint())).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .overrideConfiguration(c -> {
                    c.addExecutionInterceptor(AttemptCounter.INSTANCE)
                            .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(4).build());
                    if (extra != null) {
                        c.addExecutionInterceptor(extra);
                    }
                }).build();
    }

    /** Turns the answer to the first CreateMultipartUpload into HTTP 500, after S3 created the upload. */
    private static final class LoseFirstCreateAnswer implements ExecutionInterceptor {
        final AtomicInteger lost = new AtomicInteger();

        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            if (context.request() instanceof CreateMultipartUploadRequest && lost.compareAndSet(0, 1)) {
                return context.httpResponse().toBuilder().statusCode(500).build();
            }
            return context.httpResponse();
        }
    }
}
