package dev.animalstore.testcontainers.control;

/**
 * Which page of the journal listRequests and listUnmatchedRequests return. Start from {@link #first()}.
 *
 * @param limit at most this many entries (0 to 1000; 0 for the count alone); null for the sandbox's default, 100
 * @param after only the entries after the entry of this id: the previous page's {@link JournalPage#next()}; null
 *     for the oldest
 */
public record PageRequest(Integer limit, Long after) {

    /** The first page, of the sandbox's default size. */
    public static PageRequest first() {
        return new PageRequest(null, null);
    }

    public PageRequest withLimit(int limit) {
        return new PageRequest(limit, after);
    }

    public PageRequest withAfter(long after) {
        return new PageRequest(limit, after);
    }
}
