package io.sluice.security.tls;

import io.sluice.config.IllegalConfigurationException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What a process shows and whom it trusts on a TLS connection: its private key with its
 * certificate chain (own certificate first), and the CA certificates a peer must be signed by.
 * Either part may be absent (a REST server without client authentication trusts no one; a CLI that
 * only checks the server has no key). Checked when made: the key belongs to the first certificate,
 * which is valid now. Immutable; any thread.
 *
 * @param key     the private key, or {@code null}
 * @param chain   the certificate chain of {@code key} (empty without a key)
 * @param trusted the CA certificates peers must be signed by; empty: the JVM's default trust store
 */
public record TlsIdentity(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> trusted) {
    private static final char[] NO_PASSWORD = new char[0];
    /** The protocols Sluice speaks; older ones are refused. */
    public static final List<String> PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    public TlsIdentity {
        chain = List.copyOf(chain);
        trusted = List.copyOf(trusted);
        if ((key == null) != chain.isEmpty()) {
            throw new IllegalArgumentException("A TLS key needs its certificate chain, and a chain its key");
        }
    }

    /**
     * Reads the PEM files: {@code keyFile} with {@code certificateFile}, and {@code trustedFile};
     * a {@code null} path leaves that part out. {@code *Option} name the configuration keys, for errors.
     */
    public static TlsIdentity load(Path keyFile, String keyOption, Path certificateFile, String certificateOption,
                                   Path trustedFile, String trustedOption) {
        PrivateKey key = null;
        List<X509Certificate> chain = List.of();
        if (keyFile != null || certificateFile != null) {
            if (keyFile == null || certificateFile == null) {
                throw new IllegalConfigurationException("Set both " + keyOption + " and " + certificateOption
                        + " (a private key and its certificate), not only " + (keyFile == null ? certificateOption : keyOption));
            }
            key = PemFiles.privateKey(keyFile, keyOption);
            chain = PemFiles.certificates(certificateFile, certificateOption);
            checkValidNow(chain.get(0), certificateFile, certificateOption);
            checkKeyMatches(key, chain.get(0), keyFile, keyOption, certificateFile, certificateOption);
        }
        List<X509Certificate> trusted = trustedFile == null ? List.of() : PemFiles.certificates(trustedFile, trustedOption);
        return new TlsIdentity(key, chain, trusted);
    }

    /** The subject of this process's certificate, for logs ({@code "none"} without one). */
    public String subject() {
        return chain.isEmpty() ? "none" : chain.get(0).getSubjectX500Principal().getName();
    }

    /** A JDK TLS context with this key (if any) and trust (the configured CAs, else the JVM's defaults). */
    public SSLContext jdkContext() {
        try {
            KeyManagerFactory keys = null;
            if (key != null) {
                KeyStore store = KeyStore.getInstance("PKCS12");
                store.load(null, null);
                store.setKeyEntry("sluice", key, NO_PASSWORD, chain.toArray(new X509Certificate[0]));
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(store, NO_PASSWORD);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(trusted.isEmpty() ? null : trustStore());
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), new SecureRandom());
            return context;
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("Cannot set up TLS with the key of " + subject() + ": " + e, e);
        }
    }

    /** The trusted certificates as an in-memory key store. */
    public KeyStore trustStore() throws GeneralSecurityException, java.io.IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < trusted.size(); i++) {
            store.setCertificateEntry("ca-" + i, trusted.get(i));
        }
        return store;
    }

    private static void checkValidNow(X509Certificate certificate, Path file, String option) {
        try {
            certificate.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new IllegalConfigurationException("The certificate " + certificate.getSubjectX500Principal().getName()
                    + " in " + file + " (" + option + ") expired on " + certificate.getNotAfter().toInstant()
                    + "; issue a new one (docs/security.md)");
        } catch (CertificateNotYetValidException e) {
            throw new IllegalConfigurationException("The certificate " + certificate.getSubjectX500Principal().getName()
                    + " in " + file + " (" + option + ") is valid only from " + certificate.getNotBefore().toInstant()
                    + "; check this machine's clock");
        }
    }

    /** Signs a random message with the key and verifies it with the certificate's public key. */
    private static void checkKeyMatches(PrivateKey key, X509Certificate certificate, Path keyFile, String keyOption,
                                        Path certificateFile, String certificateOption) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448, EdDSA
        };
        boolean matches;
        try {
            byte[] probe = new byte[32];
            new SecureRandom().nextBytes(probe);
            Signature signer = Signature.getInstance(algorithm);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(algorithm);
            verifier.initVerify(certificate.getPublicKey());
            verifier.update(probe);
            matches = verifier.verify(signature);
        } catch (GeneralSecurityException e) {
            matches = false;
        }
        if (!matches) {
            throw new IllegalConfigurationException("The private key " + keyFile + " (" + keyOption + ") does not belong"
                    + " to the first certificate of " + certificateFile + " (" + certificateOption + ", "
                    + certificate.getSubjectX500Principal().getName() + "); the chain must start with the key's own"
                    + " certificate");
        }
    }

    @Override
    public String toString() {
        return "TlsIdentity[" + subject() + ", trusts " + trusted.size() + " CA certificate(s)]";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TlsIdentity other && Objects.equals(key, other.key) && chain.equals(other.chain)
                && trusted.equals(other.trusted);
    }

    @Override
    public int hashCode() {
        return Objects.hash(chain, trusted);
    }
}
