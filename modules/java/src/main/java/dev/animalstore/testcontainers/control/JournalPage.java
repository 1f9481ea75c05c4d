package dev.animalstore.testcontainers.control;

import java.util.List;

/** The answer of listRequests and listUnmatchedRequests: the matching journal entries, oldest first. */
public record JournalPage(int count, List<JournalEntry> entries) {}
