// Every model of the world vgpusim knows, as `vgpusim list models`, calibration files and the docs see it: what it
// is, where it comes from, and its declared parameters. Sharing modes come from their own registry
// (models/sharing/sharing_mode.hpp); the component models (roofline, contention) are listed here; optional rooms
// (the network model) register theirs when they are linked in.
#pragma once

#include <string>
#include <vector>

#include "sim/core/params.hpp"

namespace vgpusim {

struct ModelDescription {
  std::string name;               // the owner of its parameters, e.g. "roofline"
  std::string family;             // what kind of model: "sharing mode", "kernel performance", "contention", "network"
  std::string description;        // one line
  std::string citation;           // where it comes from
  std::string doc;                // its page under docs/models, e.g. "roofline.md"; "" for none
  std::string note;               // one more line for the listing (a sharing mode's limits); may be ""
  std::vector<ParamSpec> params;  // what it reads, per-tenant ones included
};

// The sharing modes, then the component models, then registered ones.
std::vector<ModelDescription> model_descriptions();
// Adds a model (an optional room's). Throws std::invalid_argument when its name is taken.
void register_model_description(ModelDescription description);

// Every number parameter that is not per tenant, once per qualified name: what a calibration file may set.
std::vector<ParamSpec> calibratable_params();

}  // namespace vgpusim
