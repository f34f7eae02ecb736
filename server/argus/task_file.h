// SV-COMP task definitions (the .yml files of sv-benchmarks, format_version 2.0) for
// `argus verify TASK.yml` and `argus bench DIR|TASK.yml` (issue 26 item 1).
//
//   format_version: '2.0'
//   input_files: 'list.c'            # one file (a one-element list is accepted)
//   properties:
//     - property_file: ../properties/valid-memsafety.prp   # relative to the yml
//       expected_verdict: false
//       subproperty: valid-memtrack
//   options:
//     language: C
//     data_model: ILP32
//
// Keys Argus does not use are ignored. A property file that cannot be read is
// identified by its name (SV-COMP names them after the property: `no-overflow.prp`),
// with a note; a property Argus does not know (termination, coverage-*) is skipped with a
// note. Errors (std::invalid_argument, the message names the yml): not the YAML subset
// of core/result/yaml.h, no or several input files, a missing input file, a language
// other than C, no property Argus checks.
#pragma once

#include <string>
#include <vector>

#include "server/argus/bench_manifest.h"

namespace argus::cli {

struct TaskProperty {
  std::string property;   // normalised names for --property ("valid-memsafety", "no-overflow,...")
  std::string file;       // the property file as resolved
  bool hasExpected = false;
  bool expectedSafe = true;
  // a `false` must name this property to be correct ("" for unreach-call): the yml's
  // subproperty, else the property itself when it has no subproperties
  std::string expectedViolation;
  // "true", "false", "false(valid-memtrack)", or "" when the yml states none
  std::string expectedText() const;
};

struct TaskFile {
  std::string path;        // the yml
  std::string inputFile;   // absolute, normalised
  std::string dataModel;   // "ILP32", "LP64", or "" when the yml names none
  std::vector<TaskProperty> properties;  // those Argus checks, in the yml's order
  std::vector<std::string> notes;        // what was skipped or guessed, for stderr
};

// Throws std::invalid_argument naming the yml and the problem.
TaskFile loadTaskFile(const std::string& path);

// Whether `name` ends in .yml or .yaml.
bool isTaskFileName(const std::string& name);

// `argus bench DIR|TASK.yml...`: a manifest of the task files given and of those under
// the directories given (*.yml, *.yaml, recursively, sorted): one task per property with
// an expected verdict; its id is the yml's path relative to the folder given (or the
// yml's name), ":PROPERTY" added when the yml lists several. A task without data_model
// runs with Argus's default (LP64). Throws bench::ManifestError listing every problem.
bench::Manifest manifestOfTaskFiles(const std::vector<std::string>& inputs);

}  // namespace argus::cli
