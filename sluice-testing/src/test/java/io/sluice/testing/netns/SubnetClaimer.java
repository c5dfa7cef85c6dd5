package io.sluice.testing.netns;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A process for {@link SubnetClaimTest}: claims a subnet in the lock directory of its argument and prints
 * {@code claimed <subnet>}, or {@code none: <message>} if every one is taken; then ends, releasing it.
 */
final class SubnetClaimer {
    private SubnetClaimer() {
    }

    public static void main(String[] args) {
        try (SubnetClaim claim = SubnetClaim.claim(Path.of(args[0]), s -> false)) {
            System.out.println("claimed " + claim.subnet());
        } catch (IOException e) {
            System.out.println("none: " + e.getMessage());
        }
    }
}
