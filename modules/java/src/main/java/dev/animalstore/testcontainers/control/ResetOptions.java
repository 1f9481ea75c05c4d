package dev.animalstore.testcontainers.control;

/**
 * What reset puts in place of a namespace's pets: pets generated from {@code seed} and {@code count} (each
 * optional; the sandbox's defaults fill in the other).
 */
public record ResetOptions(Long seed, Integer count) {

    /** Neither seed nor count: the same as a reset without options. */
    public static ResetOptions defaults() {
        return new ResetOptions(null, null);
    }

    /** Generate the pets from this seed (0 to 4294967295). */
    public ResetOptions withSeed(long seed) {
        return new ResetOptions(seed, count);
    }

    /** Generate this many pets (0 to 10000; default 60). */
    public ResetOptions withCount(int count) {
        return new ResetOptions(seed, count);
    }
}
