/**
 * The fixed facts of the EKS cluster the realistic generator imitates: region and zones (with
 * their zone ids), registries, versions and timestamps, EC2 instance types with their capacity
 * and allocatable, taints and tolerations, the words names are made of, common sidecars, and the
 * EndpointSlice labels.
 */

export const REGION = 'us-east-1';
export const ZONES = ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d'];
export const ZONE_IDS = ['use1-az4', 'use1-az6', 'use1-az1', 'use1-az2'];
export const ECR = '123456789012.dkr.ecr.us-east-1.amazonaws.com';
export const EKS_ECR = '602401143452.dkr.ecr.us-east-1.amazonaws.com';
export const KUBELET_VERSION = 'v1.31.4-eks-aeac579';
export const CLUSTER_CREATED = '2025-03-14T09:12:41Z';
/** The moment the dump is taken. */
export const NOW = '2026-11-01T08:00:00Z';
export const MAX_ENDPOINTS_PER_SLICE = 100;
export const MANAGED_BY = 'endpointslice.kubernetes.io/managed-by';
export const SERVICE_NAME = 'kubernetes.io/service-name';
export const CONTROLLER = 'endpointslice-controller.k8s.io';

/** A JSON object being built. */
export type Json = Record<string, unknown>;

/** An EC2 instance type as a Node reports it. */
export interface InstanceType {
  name: string;
  cpu: number;
  allocatableCpu: string;
  memoryKi: number;
  allocatableMemoryKi: number;
  pods: number;
  arch: 'amd64' | 'arm64';
}

export const INSTANCE_TYPES: Record<string, InstanceType> = {
  'm6i.large': { name: 'm6i.large', cpu: 2, allocatableCpu: '1930m', memoryKi: 7910380, allocatableMemoryKi: 7220204, pods: 29, arch: 'amd64' },
  'm6i.xlarge': { name: 'm6i.xlarge', cpu: 4, allocatableCpu: '3920m', memoryKi: 15896812, allocatableMemoryKi: 14880748, pods: 58, arch: 'amd64' },
  'm6i.2xlarge': { name: 'm6i.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32386360, allocatableMemoryKi: 31369528, pods: 58, arch: 'amd64' },
  'c6i.4xlarge': { name: 'c6i.4xlarge', cpu: 16, allocatableCpu: '15890m', memoryKi: 32387352, allocatableMemoryKi: 30654232, pods: 234, arch: 'amd64' },
  'm7g.2xlarge': { name: 'm7g.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32366232, allocatableMemoryKi: 31349400, pods: 58, arch: 'arm64' },
  'r6i.xlarge': { name: 'r6i.xlarge', cpu: 4, allocatableCpu: '3920m', memoryKi: 32388420, allocatableMemoryKi: 31372356, pods: 58, arch: 'amd64' },
  'g5.2xlarge': { name: 'g5.2xlarge', cpu: 8, allocatableCpu: '7910m', memoryKi: 32386360, allocatableMemoryKi: 31369528, pods: 58, arch: 'amd64' },
};

/** A node taint. */
export interface Taint {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'NoExecute' | 'PreferNoSchedule';
  timeAdded?: string;
}

/** A pod toleration. */
export interface Toleration {
  key?: string;
  operator: 'Equal' | 'Exists';
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** The words names are made of: teams and products, then roles. */
export const WORDS_A = ['payments', 'checkout', 'catalog', 'search', 'identity', 'ledger', 'shipping', 'pricing', 'inventory', 'orders', 'reviews', 'ads', 'fraud', 'notify', 'media', 'loyalty', 'billing', 'profile', 'risk', 'growth'];
export const WORDS_B = ['api', 'worker', 'gateway', 'cache', 'indexer', 'scheduler', 'consumer', 'frontend', 'backend', 'sync', 'router', 'exporter', 'auth', 'store', 'stream', 'batch', 'proxy', 'reader', 'writer', 'admin'];
/** Sidecars a third of the workloads carry. */
export const SIDECARS = [
  { name: 'fluent-bit', image: 'public.ecr.aws/aws-observability/aws-for-fluent-bit:2.32.4', cpu: '20m', memory: '64Mi' },
  { name: 'envoy', image: 'public.ecr.aws/appmesh/aws-appmesh-envoy:v1.29.6.0-prod', cpu: '50m', memory: '128Mi' },
  { name: 'datadog-agent', image: 'public.ecr.aws/datadog/agent:7.59.0', cpu: '30m', memory: '96Mi' },
];
