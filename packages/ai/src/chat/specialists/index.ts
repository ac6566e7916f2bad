import type { Specialist, SpecialistName } from "../types";
import { appsecSpecialist } from "./appsec";
import { cweSpecialist } from "./cwe";
import { findingsSpecialist } from "./findings";
import { identitySpecialist } from "./identity";
import { remediationSpecialist } from "./remediation";

/** The assistant's specialists, one per route. */
export const defaultSpecialists: Record<SpecialistName, Specialist> = {
  identity: identitySpecialist,
  cwe: cweSpecialist,
  findings: findingsSpecialist,
  remediation: remediationSpecialist,
  appsec: appsecSpecialist,
};
