package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.process.NoLongerLeaderException;
import io.sluice.rpc.remote.FencingTokenMismatchException;
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
}
