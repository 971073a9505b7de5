// The service's single DynamoDB table, built from the shared table definition.
import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import type { TableDefinition } from '#platform/table/definition.ts';

export interface ServiceTableProps {
  readonly definition: TableDefinition;
  /** False only for throwaway stages, so a production table cannot be dropped by a stack update or deletion. */
  readonly deletionProtection: boolean;
  readonly removalPolicy: RemovalPolicy;
  /** A customer-managed key; without one, DynamoDB encrypts with its AWS-owned key. */
  readonly encryptionKey?: IKey;
}

const projections = {
  KEYS_ONLY: ProjectionType.KEYS_ONLY,
  ALL: ProjectionType.ALL,
} as const satisfies Record<TableDefinition['indexes'][number]['projection'], ProjectionType>;

export class ServiceTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    super(scope, id);
    const { definition } = props;

    this.table = new Table(this, 'Table', {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: definition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: definition.ttlAttribute,
      // Traffic is bursty (batch ingestion) and small on average: paying per request beats provisioning for peaks.
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
      ...(props.encryptionKey
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
        : { encryption: TableEncryption.DEFAULT }),
    });

    for (const index of definition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: projections[index.projection],
      });
    }
  }
}
