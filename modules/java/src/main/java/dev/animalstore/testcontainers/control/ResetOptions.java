package dev.animalstore.testcontainers.control;

/**
 * What reset puts in place of a namespace's pets: pets generated from {@code seed} and {@code count} (each
 * optional; the sandbox's defaults fill in the other), or a snapshot's pets and clock.
 */
public record ResetOptions(Long seed, Integer count, String snapshot) {

    /** Neither seed nor count: the same as a reset without options. */
    public static ResetOptions defaults() {
        return new ResetOptions(null, null, null);
    }

    /**
     * Start from the snapshot {@code name}'s pets and clock, copy-on-write: no change of the namespace reaches the
     * snapshot or another namespace. The sandbox refuses it together with a seed or count.
     */
    public static ResetOptions fromSnapshot(String name) {
        return new ResetOptions(null, null, name);
    }

    /** Generate the pets from this seed (0 to 4294967295). */
    public ResetOptions withSeed(long seed) {
        return new ResetOptions(seed, count, snapshot);
    }

    /** Generate this many pets (0 to 10000; default 60). */
    public ResetOptions withCount(int count) {
        return new ResetOptions(seed, count, snapshot);
    }
}
