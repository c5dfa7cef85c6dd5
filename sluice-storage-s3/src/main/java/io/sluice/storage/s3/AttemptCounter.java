package io.sluice.storage.s3;

import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;

/**
 * Counts the HTTP attempts of a call that asks for it, the SDK's own retries included: a request carrying
 * {@link #ATTEMPTS} (set through its override configuration's {@code putExecutionAttribute}) has the counter
 * incremented before each attempt is sent. For calls that are not idempotent, such as CreateMultipartUpload: a call
 * that succeeded after more than one attempt may have had an earlier attempt carried out whose answer was lost.
 * Registered on every client {@link S3Clients} builds.
 *
 * <p>Threading: stateless; the SDK calls it on the thread of the call's attempt.
 */
public final class AttemptCounter implements ExecutionInterceptor {
    /** The counter of one call's attempts. */
    public static final ExecutionAttribute<AtomicInteger> ATTEMPTS = new ExecutionAttribute<>("sluice.s3.attempts");

    static final AttemptCounter INSTANCE = new AttemptCounter();

    private AttemptCounter() {}

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        AtomicInteger attempts = attributes.getAttribute(ATTEMPTS);
        if (attempts != null) {
            attempts.incrementAndGet();
        }
    }
}
