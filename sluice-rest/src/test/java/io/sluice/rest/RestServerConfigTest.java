package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestServerConfigTest {
    @TempDir
    Path dir;

    @Test
    void defaultsListenOnLoopbackPort8081WithoutAToken() {
        RestServerConfig c = RestServerConfig.defaults();
        assertThat(c.bindAddress()).isEqualTo("127.0.0.1");
        assertThat(c.port()).isEqualTo(8081);
        assertThat(c.authToken()).isNull();
        assertThat(c.maxRequestBytes()).isEqualTo(1024 * 1024);
        assertThat(c.maxUploadBytes()).isEqualTo(256L * 1024 * 1024);
    }

    @Test
    void readsAddressPortTokenAndLimitsFromTheConfiguration() {
        RestServerConfig c = RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.address", "0.0.0.0").setString("rest.port", "9000")
                .setString("rest.auth.token", "abc").setString("rest.max-upload-size", "2048"));
        assertThat(c.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(c.port()).isEqualTo(9000);
        assertThat(c.authToken()).isEqualTo("abc");
        assertThat(c.maxUploadBytes()).isEqualTo(2048);
        assertThat(c.toString()).doesNotContain("abc");
    }

    @Test
    void readsTheTokenFromTheFirstLineOfTheTokenFile() throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "  t0k3n \nignored\n");
        RestServerConfig c = RestServerConfig.fromConfiguration(new Configuration().setString("rest.auth.token-file", file.toString()));
        assertThat(c.authToken()).isEqualTo("t0k3n");
    }

    @Test
    void refusesBothTokenSettingsAnEmptyOrMissingTokenFileAndABadPort() throws Exception {
        Path empty = Files.writeString(dir.resolve("empty"), "\n");
        assertThatThrownBy(() -> RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.auth.token", "a").setString("rest.auth.token-file", empty.toString())))
                .isInstanceOf(IllegalConfigurationException.class).hasMessageContaining("not both");
        assertThatThrownBy(() -> RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.auth.token-file", empty.toString())))
                .hasMessageContaining("is empty");
        assertThatThrownBy(() -> RestServerConfig.fromConfiguration(new Configuration()
                .setString("rest.auth.token-file", dir.resolve("missing").toString())))
                .hasMessageContaining("Cannot read the token file");
        assertThatThrownBy(() -> RestServerConfig.fromConfiguration(new Configuration().setString("rest.port", "70000")))
                .hasMessageContaining("rest.port");
    }
}
