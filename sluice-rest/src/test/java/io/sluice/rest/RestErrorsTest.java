package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.process.NoLongerLeaderException;
import io.sluice.rpc.remote.FencingTokenMismatchException;
import io.sluice.rpc.remote.RpcConnectionException;
import io.sluice.rpc.remote.RpcTimeoutException;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How failures of a standby's forwarded requests become HTTP answers. */
class RestErrorsTest {

    @Test
    void aForwardedCallToADeposedLeaderIs503WithItsReason() {
        ErrorResponse gone = RestErrors.describe(new CompletionException(
                new NoLongerLeaderException("Job manager jm-1 no longer leads: the leader is jm-2")), null);
        assertThat(gone.status()).isEqualTo(503);
        assertThat(gone.error()).contains("jm-1 no longer leads").contains("retry in a moment");

        UUID old = UUID.randomUUID();
        ErrorResponse fenced = RestErrors.describe(new FencingTokenMismatchException("Endpoint 'dispatcher' refuses"
                + " listJobs made for leader session " + old, old, UUID.randomUUID()), null);
        assertThat(fenced.status()).isEqualTo(503);
        assertThat(fenced.error()).contains(old.toString());
    }

    @Test
    void anUnreachableLeaderIs503NamingItNotAnInternalError() {
        ErrorResponse unreachable = RestErrors.describe(new CompletionException(new RpcConnectionException(
                "DispatcherGateway.requestJobDetails to 'dispatcher' at 127.0.0.1:6123 failed: Cannot reach"
                        + " 127.0.0.1:6123 (Connection refused)", null)), null);
        assertThat(unreachable.status()).isEqualTo(503);
        assertThat(unreachable.error()).contains("127.0.0.1:6123 (Connection refused)").contains("retry in a moment");

        ErrorResponse slow = RestErrors.describe(new RpcTimeoutException(
                "DispatcherGateway.listJobs to 'dispatcher' at 127.0.0.1:6123 timed out after 10000 ms"), null);
        assertThat(slow.status()).isEqualTo(503);
        assertThat(slow.error()).contains("timed out after 10000 ms");
    }
}
