package dev.animalstore.testcontainers.control;

import java.util.List;

/**
 * The answer of listRequests and listUnmatchedRequests: one page of the matching journal entries, oldest first.
 *
 * @param count how many entries match the filter: the page's and all others
 * @param entries the page's entries
 * @param next the id the next page starts after ({@link PageRequest#withAfter(long)}); null on the last page, and
 *     for a limit of 0
 */
public record JournalPage(int count, List<JournalEntry> entries, Long next) {

    /** Whether more entries match after this page's last. */
    public boolean hasNext() {
        return next != null;
    }
}
