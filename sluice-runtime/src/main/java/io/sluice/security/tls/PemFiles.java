package io.sluice.security.tls;

import io.sluice.config.IllegalConfigurationException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads PEM files with the JDK alone: an unencrypted PKCS#8 private key (RSA, EC or EdDSA) and X.509
 * certificates. Every error names the file, the option it was configured by and what to do (for a
 * PKCS#1 or encrypted key: the {@code openssl} command that converts it). Stateless; any thread;
 * reads files, so call it at start-up.
 */
public final class PemFiles {
    private static final Pattern BLOCK = Pattern.compile(
            "-----BEGIN ([A-Z0-9 ]+)-----\\s*([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "EdDSA");

    private PemFiles() {}

    /** The private key in {@code file}, configured by {@code option}. */
    public static PrivateKey privateKey(Path file, String option) {
        String text = read(file, option, "private key");
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            switch (type) {
                case "PRIVATE KEY" -> {
                    return pkcs8(decode(m.group(2), file, option), file, option);
                }
                case "RSA PRIVATE KEY", "EC PRIVATE KEY" -> throw new IllegalConfigurationException("The private key "
                        + file + " (" + option + ") is in the older " + (type.startsWith("RSA") ? "PKCS#1" : "SEC1")
                        + " form ('BEGIN " + type + "'); Sluice reads PKCS#8. Convert it with: openssl pkcs8 -topk8"
                        + " -nocrypt -in " + file + " -out key-pkcs8.pem");
                case "ENCRYPTED PRIVATE KEY" -> throw new IllegalConfigurationException("The private key " + file
                        + " (" + option + ") is encrypted; Sluice reads unencrypted PKCS#8 keys protected by file"
                        + " permissions. Decrypt it with: openssl pkcs8 -in " + file + " -out key-pkcs8.pem (then"
                        + " chmod 600 key-pkcs8.pem)");
                default -> {
                    // e.g. a certificate in the same file: look further
                }
            }
        }
        throw new IllegalConfigurationException("The file " + file + " (" + option + ") holds no PEM private key"
                + " ('-----BEGIN PRIVATE KEY-----'); set " + option + " to the PEM file of this process's key");
    }

    /** The certificates in {@code file} (at least one), in file order, configured by {@code option}. */
    public static List<X509Certificate> certificates(Path file, String option) {
        String text = read(file, option, "certificates");
        List<X509Certificate> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(text);
        try {
            CertificateFactory factory = CertificateFactory.getInstance("X.509");
            while (m.find()) {
                if (m.group(1).equals("CERTIFICATE")) {
                    out.add((X509Certificate) factory.generateCertificate(
                            new ByteArrayInputStream(decode(m.group(2), file, option))));
                }
            }
        } catch (CertificateException e) {
            throw new IllegalConfigurationException("The file " + file + " (" + option + ") holds a certificate that"
                    + " cannot be read (" + e.getMessage() + "); it must hold PEM X.509 certificates");
        }
        if (out.isEmpty()) {
            throw new IllegalConfigurationException("The file " + file + " (" + option + ") holds no PEM certificate"
                    + " ('-----BEGIN CERTIFICATE-----')");
        }
        return List.copyOf(out);
    }

    private static String read(Path file, String option, String what) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalConfigurationException("There is no file " + file.toAbsolutePath() + " (" + option
                    + "); set " + option + " to the PEM file of the " + what);
        }
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalConfigurationException("Cannot read " + file.toAbsolutePath() + " (" + option + "): " + e);
        }
    }

    private static byte[] decode(String base64, Path file, String option) {
        try {
            return Base64.getMimeDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException("The PEM file " + file + " (" + option + ") is damaged: "
                    + e.getMessage());
        }
    }

    private static PrivateKey pkcs8(byte[] der, Path file, String option) {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new IllegalConfigurationException("The private key " + file + " (" + option + ") is not an RSA, EC or"
                + " EdDSA key this JVM can read");
    }
}
