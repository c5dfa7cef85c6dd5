package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.storage.BlobContent;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * A checkpoint file written as a multipart upload whose create the SDK retried: S3 carried out the first attempt,
 * but its answer was lost (turned into HTTP 500 on the client here, as a cut connection or a timed-out attempt
 * would lose it on S3), so the retry created a second upload. The put completes the second; the first is aborted
 * rather than left open for ever (it was before the store counted the create's attempts). A create whose answer is
 * lost on every attempt fails the put and leaves an upload per attempt: they are aborted after the next put that
 * succeeds (they stayed open until their directory was deleted before), but never one a put of the key writes now.
 */
class S3RetriedCreateTest {
    private static final String BUCKET = "bucket";
    private static final S3Location LOCATION = new S3Location("s3://" + BUCKET + "/checkpoints");
    private static final byte[] DATA = new byte[64 * 1024];

    static {
        new java.util.Random(7).nextBytes(DATA);
    }

    @Test
    void anUploadCreatedByAnAttemptWhoseAnswerWasLostIsAbortedOnceTheRetrySucceeds() throws Exception {
        LoseCreateAnswers lose = new LoseCreateAnswers(1);
        try (S3ProxyServer server = S3ProxyServer.start(BUCKET);
             S3Client reader = client(server);
             Store store = Store.of(server, lose)) {
            store.put("job/chk-1/file");

            assertThat(lose.lost.get()).as("the first create's answer was lost, the SDK retried").isOne();
            assertThat(server.objectBytes(BUCKET, "checkpoints/job/chk-1/file")).isEqualTo(DATA);
            assertThat(openUploads(reader)).as("uploads left open").isEmpty();
        }
    }

    @Test
    void uploadsOfACreateWhoseAnswerWasLostOnEveryAttemptAreAbortedAfterTheNextPutThatSucceeds() throws Exception {
        LoseCreateAnswers lose = new LoseCreateAnswers(4);
        try (S3ProxyServer server = S3ProxyServer.start(BUCKET);
             S3Client reader = client(server);
             Store store = Store.of(server, lose)) {
            assertThatThrownBy(() -> store.put("job/shared/a.sst"))
                    .as("a create whose every answer is lost").isInstanceOf(RuntimeException.class);
            assertThat(lose.lost.get()).as("answers lost: every attempt of the SDK's four").isEqualTo(4);
            assertThat(openUploads(reader)).as("uploads S3 created for the four attempts").hasSize(4);
            assertThat(store.uploads().keysInDoubt()).containsExactly(store.key("job/shared/a.sst"));

            store.put("job/chk-2/b");

            assertThat(openUploads(reader)).as("uploads left open after a put succeeded").isEmpty();
            assertThat(store.uploads().keysInDoubt()).isEmpty();
            assertThat(server.objectBytes(BUCKET, "checkpoints/job/chk-2/b")).isEqualTo(DATA);
        }
    }

    @Test
    void theSweepLeavesAloneAnUploadOfAKeyInDoubtThatAPutWritesNow() throws Exception {
        String doubtful = "job/shared/a.sst";
        Hold hold = Hold.uploadPartOf(LOCATION.key(doubtful));
        try (S3ProxyServer server = S3ProxyServer.start(BUCKET);
             S3Client reader = client(server);
             Store store = Store.of(server, new LoseCreateAnswers(4), hold)) {
            assertThatThrownBy(() -> store.put(doubtful)).isInstanceOf(RuntimeException.class);
            assertThat(store.uploads().keysInDoubt()).containsExactly(store.key(doubtful));

            CompletableFuture<Void> again = CompletableFuture.runAsync(() -> store.put(doubtful));
            assertThat(hold.entered.await(30, TimeUnit.SECONDS)).as("the second put of the key sends a part").isTrue();
            store.put("job/chk-2/b");
            assertThat(store.uploads().keysInDoubt()).as("a key being put is not swept")
                    .containsExactly(store.key(doubtful));
            hold.release.countDown();
            again.get(30, TimeUnit.SECONDS);

            assertThat(server.objectBytes(BUCKET, "checkpoints/job/shared/a.sst")).isEqualTo(DATA);
            store.put("job/chk-3/c");
            assertThat(openUploads(reader)).as("uploads left open once the key was swept").isEmpty();
            assertThat(store.uploads().keysInDoubt()).isEmpty();
        }
    }

    @Test
    void aPutOfAKeyInDoubtThatBeginsWhileASweepListsKeepsTheKeyInDoubt() throws Exception {
        String doubtful = "job/shared/a.sst";
        Hold listing = Hold.uploadListing();
        Hold part = Hold.uploadPartOf(LOCATION.key(doubtful));
        try (S3ProxyServer server = S3ProxyServer.start(BUCKET);
             S3Client reader = client(server);
             Store store = Store.of(server, new LoseCreateAnswers(4), listing, part)) {
            assertThatThrownBy(() -> store.put(doubtful)).isInstanceOf(RuntimeException.class);
            CompletableFuture<Void> sweeping = CompletableFuture.runAsync(() -> store.put("job/chk-2/b"));
            assertThat(listing.entered.await(30, TimeUnit.SECONDS)).as("the sweep lists the uploads").isTrue();
            CompletableFuture<Void> again = CompletableFuture.runAsync(() -> store.put(doubtful));
            assertThat(part.entered.await(30, TimeUnit.SECONDS)).as("the second put of the key sends a part").isTrue();

            listing.release.countDown();
            sweeping.get(30, TimeUnit.SECONDS);
            assertThat(store.uploads().keysInDoubt()).as("a key whose put began during the listing")
                    .containsExactly(store.key(doubtful));
            part.release.countDown();
            again.get(30, TimeUnit.SECONDS);

            store.put("job/chk-3/c");
            assertThat(openUploads(reader)).as("uploads left open once the key was swept").isEmpty();
            assertThat(store.uploads().keysInDoubt()).isEmpty();
            assertThat(server.objectBytes(BUCKET, "checkpoints/job/shared/a.sst")).isEqualTo(DATA);
        }
    }

    /** The store's uploads under {@link #LOCATION} through a client of the server with {@code faults}. */
    private record Store(S3ClientHolder clients, S3Uploads uploads) implements AutoCloseable {
        static Store of(S3ProxyServer server, ExecutionInterceptor... faults) {
            S3ClientHolder clients = new S3ClientHolder(LOCATION, () -> client(server, faults));
            AtomicLong apiCalls = new AtomicLong();
            S3KeyListing keys = new S3KeyListing(io.sluice.storage.StorageException.CHECKPOINT_STORAGE, LOCATION,
                    clients, apiCalls, 1000, 1000);
            return new Store(clients, new S3Uploads(LOCATION, clients, clients, keys, apiCalls, 1024, 5 * 1024 * 1024));
        }

        String key(String path) {
            return LOCATION.key(path);
        }

        /** Puts {@link #DATA} (64 KiB: a multipart upload here) as {@code path}. */
        void put(String path) {
            uploads.put(path, key(path), BlobContent.of(DATA));
        }

        @Override
        public void close() {
            clients.close();
        }
    }

    private static List<String> openUploads(S3Client reader) {
        return reader.listMultipartUploads(b -> b.bucket(BUCKET).prefix("checkpoints/")).uploads().stream()
                .map(u -> u.key() + " " + u.uploadId()).toList();
    }

    /** A client of the server as the store builds one (retries, the attempt counter), with {@code extra} too. */
    private static S3Client client(S3ProxyServer server, ExecutionInterceptor... extra) {
        return S3Client.builder().endpointOverride(URI.create(server.endpoint())).region(Region.US_EAST_1)
                .forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .overrideConfiguration(c -> {
                    c.addExecutionInterceptor(AttemptCounter.INSTANCE)
                            .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder().maxAttempts(4).build());
                    for (ExecutionInterceptor e : extra) {
                        c.addExecutionInterceptor(e);
                    }
                }).build();
    }

    /** Holds the first request {@code which} selects until {@link #release}, once it told {@link #entered}. */
    private static final class Hold implements ExecutionInterceptor {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private final Predicate<SdkRequest> which;

        Hold(Predicate<SdkRequest> which) {
            this.which = which;
        }

        static Hold uploadPartOf(String key) {
            return new Hold(r -> r instanceof UploadPartRequest p && p.key().equals(key));
        }

        static Hold uploadListing() {
            return new Hold(r -> r instanceof ListMultipartUploadsRequest);
        }

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            if (which.test(context.request()) && entered.getCount() > 0) {
                entered.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Turns the answers to the first {@code n} CreateMultipartUploads into HTTP 500, after S3 created the uploads. */
    private static final class LoseCreateAnswers implements ExecutionInterceptor {
        final AtomicInteger lost = new AtomicInteger();
        private final int n;

        LoseCreateAnswers(int n) {
            this.n = n;
        }

        @Override
        public SdkHttpResponse modifyHttpResponse(Context.ModifyHttpResponse context, ExecutionAttributes attributes) {
            if (context.request() instanceof CreateMultipartUploadRequest && lost.getAndUpdate(l -> l < n ? l + 1 : l) < n) {
                return context.httpResponse().toBuilder().statusCode(500).build();
            }
            return context.httpResponse();
        }
    }
}
