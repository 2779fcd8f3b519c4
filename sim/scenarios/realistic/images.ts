/**
 * The images the realistic cluster runs: EKS's system images, 90 application images in the
 * account's ECR and the sidecars, each with a digest drawn once, and the image list entries
 * (names by digest and tag, size) a Node reports.
 */
import { ECR, EKS_ECR, SIDECARS, WORDS_A, WORDS_B } from './catalogue';
import type { Dice } from './dice';

/** The image catalogue of one generation. */
export interface ImageCatalogue {
  readonly systemImages: readonly string[];
  /** Application images, then the sidecars'. */
  readonly appImages: readonly string[];
  /** An image's digest (drawn at its first use). */
  digestOf(image: string): string;
  /** A Node's `status.images` entry for an image. */
  imageEntry(image: string): { names: string[]; sizeBytes: number };
}

/** Draws the catalogue. */
export function createImageCatalogue(dice: Dice): ImageCatalogue {
  const { hex, int } = dice;
  const systemImages = [
    `${EKS_ECR}/amazon-k8s-cni:v1.19.2-eksbuild.1`, `${EKS_ECR}/amazon-k8s-cni-init:v1.19.2-eksbuild.1`, `${EKS_ECR}/amazon/aws-network-policy-agent:v1.1.6-eksbuild.1`,
    `${EKS_ECR}/eks/kube-proxy:v1.31.3-minimal-eksbuild.2`, `${EKS_ECR}/eks/pause:3.5`, `${EKS_ECR}/eks/aws-ebs-csi-driver:v1.38.1`,
    `${EKS_ECR}/eks/csi-node-driver-registrar:v2.12.0-eks-1-31-11`, `${EKS_ECR}/eks/livenessprobe:v2.14.0-eks-1-31-11`, `${EKS_ECR}/eks/coredns:v1.11.4-eksbuild.2`,
  ];
  const appImages: string[] = [];
  for (let i = 0; i < 90; i++) appImages.push(`${ECR}/${WORDS_A[i % WORDS_A.length]}-${WORDS_B[(i * 7) % WORDS_B.length]}:${int(1, 4)}.${int(0, 40)}.${int(0, 9)}`);
  for (const s of SIDECARS) appImages.push(s.image);
  const digest = new Map<string, string>();
  const digestOf = (image: string): string => {
    let d = digest.get(image);
    if (d === undefined) {
      d = hex(64);
      digest.set(image, d);
    }
    return d;
  };
  const imageEntry = (image: string) => {
    const repo = image.slice(0, image.lastIndexOf(':'));
    return { names: [`${repo}@sha256:${digestOf(image)}`, image], sizeBytes: int(2_000_000, 450_000_000) };
  };
  return { systemImages, appImages, digestOf, imageEntry };
}
