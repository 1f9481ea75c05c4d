"""Contains all the data models used in inputs/outputs"""

from .answered_error import AnsweredError
from .await_request import AwaitRequest
from .await_result import AwaitResult
from .await_result_ended_by import AwaitResultEndedBy
from .bundle import Bundle
from .bundle_clock import BundleClock
from .bundle_journal import BundleJournal
from .bundle_now import BundleNow
from .bundle_sandbox import BundleSandbox
from .bundle_settings import BundleSettings
from .bundle_start import BundleStart
from .bundle_start_source_type_0 import BundleStartSourceType0
from .cleared import Cleared
from .clock import Clock
from .coverage_report import CoverageReport
from .coverage_report_invalid import CoverageReportInvalid
from .coverage_report_invalid_requests_item import CoverageReportInvalidRequestsItem
from .coverage_report_summary import CoverageReportSummary
from .coverage_report_unmatched import CoverageReportUnmatched
from .coverage_report_unmatched_requests_item import CoverageReportUnmatchedRequestsItem
from .delete_namespace_response_200 import DeleteNamespaceResponse200
from .delete_snapshot_response_200 import DeleteSnapshotResponse200
from .deprecated_call import DeprecatedCall
from .difference import Difference
from .difference_in import DifferenceIn
from .drift import Drift
from .drift_kind import DriftKind
from .drift_report import DriftReport
from .drift_report_mode import DriftReportMode
from .drift_report_operations import DriftReportOperations
from .drift_report_operations_additional_property import (
    DriftReportOperationsAdditionalProperty,
)
from .drift_request import DriftRequest
from .entry_summary import EntrySummary
from .error import Error
from .expectation import Expectation
from .expectation_headers import ExpectationHeaders
from .expectation_result import ExpectationResult
from .expectation_result_closest_item import ExpectationResultClosestItem
from .fault import Fault
from .fault_hit import FaultHit
from .fault_seen_by import FaultSeenBy
from .get_coverage_format import GetCoverageFormat
from .journal_entry import JournalEntry
from .journal_entry_attempts_item import JournalEntryAttemptsItem
from .journal_entry_headers import JournalEntryHeaders
from .journal_entry_query import JournalEntryQuery
from .journal_page import JournalPage
from .list_faults_response_200 import ListFaultsResponse200
from .list_namespaces_response_200 import ListNamespacesResponse200
from .list_namespaces_response_200_journal import ListNamespacesResponse200Journal
from .list_namespaces_response_200_namespaces_item import (
    ListNamespacesResponse200NamespacesItem,
)
from .list_snapshots_response_200 import ListSnapshotsResponse200
from .new_fault import NewFault
from .new_fault_fault import NewFaultFault
from .new_pet import NewPet
from .new_snapshot import NewSnapshot
from .operation_coverage import OperationCoverage
from .operation_coverage_undocumented_item import OperationCoverageUndocumentedItem
from .pact import Pact
from .pact_interactions_item import PactInteractionsItem
from .pact_interactions_item_provider_states_item import (
    PactInteractionsItemProviderStatesItem,
)
from .pact_interactions_item_provider_states_item_params import (
    PactInteractionsItemProviderStatesItemParams,
)
from .pact_interactions_item_request import PactInteractionsItemRequest
from .pact_interactions_item_response import PactInteractionsItemResponse
from .pact_interactions_item_type import PactInteractionsItemType
from .pact_metadata import PactMetadata
from .pact_metadata_animal_store_sandbox import PactMetadataAnimalStoreSandbox
from .pact_metadata_pact_specification import PactMetadataPactSpecification
from .pact_metadata_pact_specification_version import (
    PactMetadataPactSpecificationVersion,
)
from .pacticipant import Pacticipant
from .parameter_coverage import ParameterCoverage
from .parameter_coverage_others_item import ParameterCoverageOthersItem
from .parameter_coverage_values_item import ParameterCoverageValuesItem
from .parameter_coverage_values_item_kind import ParameterCoverageValuesItemKind
from .pet import Pet
from .pet_status import PetStatus
from .reset_body import ResetBody
from .response_coverage import ResponseCoverage
from .set_clock_body import SetClockBody
from .snapshot import Snapshot
from .stability import Stability
from .state_summary import StateSummary
from .stray_call import StrayCall
from .stray_call_reason import StrayCallReason
from .stray_report import StrayReport
from .test_end import TestEnd
from .unstable_call import UnstableCall
from .verify_request import VerifyRequest
from .verify_result import VerifyResult

__all__ = (
    "AnsweredError",
    "AwaitRequest",
    "AwaitResult",
    "AwaitResultEndedBy",
    "Bundle",
    "BundleClock",
    "BundleJournal",
    "BundleNow",
    "BundleSandbox",
    "BundleSettings",
    "BundleStart",
    "BundleStartSourceType0",
    "Cleared",
    "Clock",
    "CoverageReport",
    "CoverageReportInvalid",
    "CoverageReportInvalidRequestsItem",
    "CoverageReportSummary",
    "CoverageReportUnmatched",
    "CoverageReportUnmatchedRequestsItem",
    "DeleteNamespaceResponse200",
    "DeleteSnapshotResponse200",
    "DeprecatedCall",
    "Difference",
    "DifferenceIn",
    "Drift",
    "DriftKind",
    "DriftReport",
    "DriftReportMode",
    "DriftReportOperations",
    "DriftReportOperationsAdditionalProperty",
    "DriftRequest",
    "EntrySummary",
    "Error",
    "Expectation",
    "ExpectationHeaders",
    "ExpectationResult",
    "ExpectationResultClosestItem",
    "Fault",
    "FaultHit",
    "FaultSeenBy",
    "GetCoverageFormat",
    "JournalEntry",
    "JournalEntryAttemptsItem",
    "JournalEntryHeaders",
    "JournalEntryQuery",
    "JournalPage",
    "ListFaultsResponse200",
    "ListNamespacesResponse200",
    "ListNamespacesResponse200Journal",
    "ListNamespacesResponse200NamespacesItem",
    "ListSnapshotsResponse200",
    "NewFault",
    "NewFaultFault",
    "NewPet",
    "NewSnapshot",
    "OperationCoverage",
    "OperationCoverageUndocumentedItem",
    "Pact",
    "PactInteractionsItem",
    "PactInteractionsItemProviderStatesItem",
    "PactInteractionsItemProviderStatesItemParams",
    "PactInteractionsItemRequest",
    "PactInteractionsItemResponse",
    "PactInteractionsItemType",
    "PactMetadata",
    "PactMetadataAnimalStoreSandbox",
    "PactMetadataPactSpecification",
    "PactMetadataPactSpecificationVersion",
    "Pacticipant",
    "ParameterCoverage",
    "ParameterCoverageOthersItem",
    "ParameterCoverageValuesItem",
    "ParameterCoverageValuesItemKind",
    "Pet",
    "PetStatus",
    "ResetBody",
    "ResponseCoverage",
    "SetClockBody",
    "Snapshot",
    "Stability",
    "StateSummary",
    "StrayCall",
    "StrayCallReason",
    "StrayReport",
    "TestEnd",
    "UnstableCall",
    "VerifyRequest",
    "VerifyResult",
)
