package io.sluice.cluster.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class JobManagerAddressTest {

    @Test
    void encodesAndParsesBack() {
        JobManagerAddress a = new JobManagerAddress("jobmanager-1", "jm-1.example", 6123, "http://jm-1.example:8081");
        assertThat(a.encode()).isEqualTo("sluice-jm://jm-1.example:6123/jobmanager-1?rest=http://jm-1.example:8081");
        assertThat(JobManagerAddress.parse(a.encode())).isEqualTo(a);
        assertThat(a.rpcAddress()).isEqualTo("jm-1.example:6123");
    }

    @Test
    void restUrlIsOptionalAndIpv6HostsAreBracketed() {
        JobManagerAddress noRest = new JobManagerAddress("jm-0", "10.0.0.7", 6123, null);
        assertThat(noRest.encode()).isEqualTo("sluice-jm://10.0.0.7:6123/jm-0");
        assertThat(JobManagerAddress.parse(noRest.encode())).isEqualTo(noRest);

        JobManagerAddress v6 = new JobManagerAddress("jm-0", "::1", 6123, "http://[::1]:8081");
        assertThat(v6.encode()).isEqualTo("sluice-jm://[::1]:6123/jm-0?rest=http://[::1]:8081");
        assertThat(JobManagerAddress.parse(v6.encode())).isEqualTo(v6);
    }

    @Test
    void parseErrorsSayWhatIsWrong() {
        assertThatThrownBy(() -> JobManagerAddress.parse("jobmanager-0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'jobmanager-0' is not a job manager address")
                .hasMessageContaining("sluice-jm://<host>:<port>/<id>");
        assertThatThrownBy(() -> JobManagerAddress.parse("sluice-jm://host/jm-0"))
                .hasMessageContaining("has no port");
        assertThatThrownBy(() -> JobManagerAddress.parse("sluice-jm://host:6123"))
                .hasMessageContaining("has no job manager id");
        assertThatThrownBy(() -> JobManagerAddress.parse("sluice-jm://host:6123/jm-0?port=1"))
                .hasMessageContaining("the query must be rest=<url>");
        assertThatThrownBy(() -> JobManagerAddress.parse("sluice-jm://host:70000/jm-0"))
                .hasMessageContaining("sluice-jm://host:70000/jm-0");
        assertThatThrownBy(() -> JobManagerAddress.parse(null)).hasMessageContaining("'null' is not a job manager address");
        assertThatThrownBy(() -> new JobManagerAddress("a/b", "h", 1, null)).hasMessageContaining("'a/b'");
    }
}
