// SPDX-License-Identifier: LGPL-2.1-or-later
// The shipped plugin's executor factory: the executors and the work as they are (see executorfactory.h).
#include "executors/executorfactory.h"

namespace gstcudafilters {

std::shared_ptr<ExecutorFactory> makeExecutorFactory(GstCfFilter*) { return std::make_shared<ExecutorFactory>(); }

}  // namespace gstcudafilters
