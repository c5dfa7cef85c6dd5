package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.HeartbeatOptions;
import io.sluice.config.TaskManagerOptions;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MembershipSettingsTest {

    @Test
    void defaultsAreOneSecondSixSecondsAndHundredMillisDoublingToTenSeconds() {
        HeartbeatSettings h = HeartbeatSettings.from(new Configuration());
        assertThat(h).isEqualTo(HeartbeatSettings.DEFAULT);
        assertThat(h.interval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(h.timeout()).isEqualTo(Duration.ofSeconds(6));
        assertThat(h.describeTimeout()).isEqualTo("6 s");

        RegistrationBackoff b = RegistrationBackoff.from(new Configuration());
        assertThat(b).isEqualTo(RegistrationBackoff.DEFAULT);
        assertThat(b.delayAfter(1)).isEqualTo(Duration.ofMillis(100));
        assertThat(b.delayAfter(2)).isEqualTo(Duration.ofMillis(200));
        assertThat(b.delayAfter(7)).isEqualTo(Duration.ofMillis(6_400));
        assertThat(b.delayAfter(8)).isEqualTo(Duration.ofSeconds(10));
        assertThat(b.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void configuredValuesAreUsedAndATimeoutNotAboveTheIntervalIsRefused() {
        Configuration c = new Configuration().set(HeartbeatOptions.INTERVAL, Duration.ofMillis(500))
                .set(HeartbeatOptions.TIMEOUT, Duration.ofMillis(2_500))
                .set(TaskManagerOptions.REGISTRATION_INITIAL_BACKOFF, Duration.ofMillis(50))
                .set(TaskManagerOptions.REGISTRATION_MAX_BACKOFF, Duration.ofSeconds(1));
        assertThat(HeartbeatSettings.from(c)).isEqualTo(new HeartbeatSettings(Duration.ofMillis(500), Duration.ofMillis(2_500)));
        assertThat(HeartbeatSettings.from(c).describeTimeout()).isEqualTo("2.5 s");
        assertThat(RegistrationBackoff.from(c).delayAfter(10)).isEqualTo(Duration.ofSeconds(1));

        assertThatThrownBy(() -> HeartbeatSettings.from(new Configuration().set(HeartbeatOptions.TIMEOUT, Duration.ofSeconds(1))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heartbeat.timeout (PT1S) must be larger than heartbeat.interval (PT1S)");
        assertThatThrownBy(() -> new RegistrationBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .hasMessageContaining("taskmanager.registration.max-backoff (PT1S) must not be below");
    }
}
