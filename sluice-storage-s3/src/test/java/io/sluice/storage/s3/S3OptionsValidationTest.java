package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import org.junit.jupiter.api.Test;

/** The S3 options are known to configuration validation through their provider. */
class S3OptionsValidationTest {
    @Test
    void s3KeysAreKnownAndTheirTyposNamed() {
        assertThatCode(() -> new Configuration().setString("s3.endpoint", "http://localhost:9000")
                .setString("s3.path-style-access", "true").validateAll()).doesNotThrowAnyException();
        assertThatThrownBy(() -> new Configuration().setString("s3.endpont", "http://x").validateAll())
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Unknown configuration key 's3.endpont'; did you mean 's3.endpoint'?");
    }
}
