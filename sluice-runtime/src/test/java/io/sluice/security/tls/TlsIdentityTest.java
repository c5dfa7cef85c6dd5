package io.sluice.security.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.config.SecurityOptions;
import io.sluice.testing.tls.TestCertificates;
import io.sluice.testing.tls.TestCertificates.Authority;
import io.sluice.testing.tls.TestCertificates.PemFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading the PEM files of the internal TLS, and what a wrong file says. Certificates made by the test. */
class TlsIdentityTest {
    private static final Authority CA = TestCertificates.authority("Sluice test CA");

    @TempDir
    Path dir;

    @Test
    void aKeyItsCertificateAndTheTrustedCaAreRead() {
        PemFiles files = CA.issue("node-1", dir);
        TlsIdentity identity = files.identity();
        assertThat(identity.subject()).isEqualTo("CN=node-1");
        assertThat(identity.trusted()).containsExactly(CA.certificate());
        assertThat(identity.chain()).hasSize(1);
    }

    @Test
    void internalTlsIsOffByDefaultAndNeedsEveryFileWhenOn() {
        assertThat(InternalTls.fromConfiguration(new Configuration())).isNull();
        Configuration on = new Configuration();
        on.set(SecurityOptions.INTERNAL_TLS_ENABLED, true);
        assertThatThrownBy(() -> InternalTls.fromConfiguration(on)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("security.internal.tls.enabled is true but security.internal.tls.key is not set; set it to a"
                        + " PEM file (docs/security.md), or turn internal TLS off");
    }

    @Test
    void aMissingFileIsNamedWithItsOption() {
        PemFiles files = CA.issue("node-1", dir);
        Configuration c = new Configuration(files.internalTlsSettings());
        c.setString(SecurityOptions.INTERNAL_TLS_CERTIFICATE.key(), dir.resolve("nope.pem").toString());
        assertThatThrownBy(() -> InternalTls.fromConfiguration(c)).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("There is no file " + dir.resolve("nope.pem").toAbsolutePath())
                .hasMessageContaining("(security.internal.tls.certificate)");
    }

    @Test
    void aPkcs1OrEncryptedKeyIsRefusedWithTheCommandThatConvertsIt() throws Exception {
        Path pkcs1 = Files.writeString(dir.resolve("old.pem"), "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        assertThatThrownBy(() -> readKey(pkcs1)).hasMessageContaining("older PKCS#1 form")
                .hasMessageContaining("openssl pkcs8 -topk8 -nocrypt -in " + pkcs1);
        Path encrypted = Files.writeString(dir.resolve("enc.pem"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        assertThatThrownBy(() -> readKey(encrypted)).hasMessageContaining("is encrypted");
    }

    private static Object readKey(Path file) {
        return io.sluice.security.tls.PemFiles.privateKey(file, "security.internal.tls.key");
    }

    @Test
    void aKeyOfAnotherCertificateAndAnExpiredCertificateAreRefused() {
        PemFiles one = CA.issue("node-1", dir.resolve("one"));
        PemFiles two = CA.issue("node-2", dir.resolve("two"));
        assertThatThrownBy(() -> TlsIdentity.load(one.key(), "k", two.certificate(), "c", one.trusted(), "t"))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("does not belong to the first certificate of " + two.certificate());
        PemFiles expired = CA.issueExpired("old-node", dir.resolve("expired"));
        assertThatThrownBy(expired::identity).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("The certificate CN=old-node").hasMessageContaining("expired on");
    }
}
