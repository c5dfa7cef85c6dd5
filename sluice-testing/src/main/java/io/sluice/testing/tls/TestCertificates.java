package io.sluice.testing.tls;

import io.sluice.config.SecurityOptions;
import io.sluice.config.SecurityOptions.TlsProvider;
import io.sluice.security.tls.InternalTls;
import io.sluice.security.tls.TlsIdentity;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificates for tests and benchmarks, made when they run (no private key is ever committed): a
 * certificate authority, and certificates it signs for the processes of a test cluster (EC P-256,
 * SHA-256, valid from an hour ago for a day, with {@code localhost} and {@code 127.0.0.1} as
 * subject alternative names), written as the PEM files Sluice's configuration names. Test code only;
 * thread-safe.
 */
public final class TestCertificates {
    private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());

    private TestCertificates() {}

    /** The PEM files of one process: its key, its certificate chain, and the CA certificates it trusts. */
    public record PemFiles(Path key, Path certificate, Path trusted) {
        /** The {@code security.internal.tls.*} settings that use these files. */
        public Map<String, String> internalTlsSettings() {
            Map<String, String> m = new LinkedHashMap<>();
            m.put(SecurityOptions.INTERNAL_TLS_ENABLED.key(), "true");
            m.put(SecurityOptions.INTERNAL_TLS_KEY.key(), key.toString());
            m.put(SecurityOptions.INTERNAL_TLS_CERTIFICATE.key(), certificate.toString());
            m.put(SecurityOptions.INTERNAL_TLS_TRUSTED_CERTIFICATES.key(), trusted.toString());
            return m;
        }

        /** The files read as Sluice reads them. */
        public TlsIdentity identity() {
            return TlsIdentity.load(key, "key", certificate, "certificate", trusted, "trusted");
        }

        /** Mutual TLS with these files through {@code provider}. */
        public InternalTls internalTls(TlsProvider provider) {
            return InternalTls.of(identity(), provider);
        }
    }

    /** A certificate authority: its key pair and self-signed certificate. */
    public static final class Authority {
        private final String name;
        private final KeyPair keys;
        private final X509Certificate certificate;

        private Authority(String name, KeyPair keys, X509Certificate certificate) {
            this.name = name;
            this.keys = keys;
            this.certificate = certificate;
        }

        public X509Certificate certificate() {
            return certificate;
        }

        /**
         * A certificate for {@code commonName} signed by this authority, written to {@code directory}
         * as {@code <commonName>-key.pem}, {@code <commonName>-cert.pem} and {@code <commonName>-ca.pem}.
         */
        public PemFiles issue(String commonName, Path directory) {
            KeyPair pair = ecKeyPair();
            X509Certificate leaf = sign(new X500Name("CN=" + commonName), pair, new X500Name("CN=" + name), keys, false,
                    Instant.now().plus(Duration.ofDays(1)));
            return write(directory, commonName, pair, List.of(leaf), certificate);
        }

        /** Like {@link #issue}, but the certificate expired an hour ago. */
        public PemFiles issueExpired(String commonName, Path directory) {
            KeyPair pair = ecKeyPair();
            X509Certificate leaf = sign(new X500Name("CN=" + commonName), pair, new X500Name("CN=" + name), keys, false,
                    Instant.now().minus(Duration.ofHours(1)));
            return write(directory, commonName, pair, List.of(leaf), certificate);
        }

        /** This authority's certificate alone, as a PEM file in {@code directory}. */
        public Path writeCertificate(Path directory) {
            Path file = directory.resolve(name.replaceAll("[^A-Za-z0-9-]", "_") + "-ca.pem");
            writePem(file, certificate);
            return file;
        }
    }

    /** A new certificate authority named {@code name}. */
    public static Authority authority(String name) {
        KeyPair keys = ecKeyPair();
        X500Name subject = new X500Name("CN=" + name);
        return new Authority(name, keys, sign(subject, keys, subject, keys, true, Instant.now().plus(Duration.ofDays(2))));
    }

    private static PemFiles write(Path directory, String name, KeyPair pair, List<X509Certificate> chain,
                                  X509Certificate ca) {
        try {
            Files.createDirectories(directory);
            Path key = directory.resolve(name + "-key.pem");
            StringWriter text = new StringWriter();
            try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
                pem.writeObject(new JcaPKCS8Generator(pair.getPrivate(), null));
            }
            Files.writeString(key, text.toString());
            Path certificate = directory.resolve(name + "-cert.pem");
            writePem(certificate, chain.toArray());
            Path trusted = directory.resolve(name + "-ca.pem");
            writePem(trusted, ca);
            return new PemFiles(key, certificate, trusted);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writePem(Path file, Object... objects) {
        StringWriter text = new StringWriter();
        try (JcaPEMWriter pem = new JcaPEMWriter(text)) {
            for (Object o : objects) {
                pem.writeObject(o);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            Files.writeString(file, text.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair ecKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, KeyPair issuerKeys,
                                        boolean ca, Instant notAfter) {
        try {
            Instant notBefore = Instant.now().minus(Duration.ofHours(2));
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer,
                    BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(notBefore), Date.from(notAfter), subject,
                    subjectKeys.getPublic());
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
            if (ca) {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            } else {
                builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
                builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.dNSName, "localhost"),
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1")}));
            }
            return new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKeys.getPrivate())));
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("Cannot make a test certificate for " + subject + ": " + e, e);
        }
    }
}
